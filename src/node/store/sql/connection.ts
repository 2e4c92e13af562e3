import type { Database, SqlJsStatic, SqlValue } from 'sql.js';
import { migrationsFrom, SCHEMA_VERSION } from './schema';
import { forgetStatements } from './preparedStatements';

export type Row = Record<string, SqlValue>;

export function rows(db: Database, sql: string, params: SqlValue[] = []): Row[] {
  const statement = db.prepare(sql);
  try {
    statement.bind(params);
    const out: Row[] = [];
    // The column names once, not per row as getAsObject asks sql.js for them (a string copied out of wasm per column per row).
    let names: string[] | undefined;
    while (statement.step()) {
      names ??= statement.getColumnNames();
      const values = statement.get();
      const row: Row = {};
      for (let i = 0; i < names.length; i++) row[names[i]] = values[i];
      out.push(row);
    }
    return out;
  } finally {
    statement.free();
  }
}

/**
 * A database here is an image in memory, saved whole by export and an atomic rename, so SQLite's
 * rollback journal, fsyncs and file locks on sql.js's in-memory file system only cost file
 * operations on every insert: the journal is kept in memory (a failed statement still rolls
 * back), nothing is synced, and the connection holds its lock for its life.
 */
export function tuneConnection(db: Database): void {
  db.run('PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE');
}

/**
 * The database's image. sql.js's export closes and reopens the connection, which frees its
 * prepared statements and drops its settings: the settings are made again.
 */
export function exportImage(db: Database): Uint8Array {
  forgetStatements(db);
  const data = db.export();
  tuneConnection(db);
  return data;
}

/** Rows written through this connection since it was opened (an export opens it again). */
export function rowsWritten(db: Database): number {
  return Number(db.exec('SELECT total_changes()')[0]?.values[0]?.[0] ?? 0);
}

/** An empty database at the current schema. */
export function newDatabase(SQL: SqlJsStatic): Database {
  const db = new SQL.Database();
  tuneConnection(db);
  for (const m of migrationsFrom(0)) db.run(m.sql);
  db.run(`PRAGMA user_version = ${SCHEMA_VERSION}`);
  return db;
}
