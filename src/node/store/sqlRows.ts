import type { Database, SqlJsStatic, SqlValue } from 'sql.js';
import { migrationsFrom, SCHEMA_VERSION } from './schema';

export type Row = Record<string, SqlValue>;

export function rows(db: Database, sql: string, params: SqlValue[] = []): Row[] {
  const statement = db.prepare(sql);
  try {
    statement.bind(params);
    const out: Row[] = [];
    while (statement.step()) out.push(statement.getAsObject());
    return out;
  } finally {
    statement.free();
  }
}

/**
 * A database here is an image in memory, saved whole by export and an atomic rename, so SQLite's
 * rollback journal on sql.js's in-memory file system only cost file operations on every insert:
 * it is kept in memory instead (a failed statement still rolls back).
 */
export function journalInMemory(db: Database): void {
  db.run('PRAGMA journal_mode = MEMORY');
}

/** An empty database at the current schema. */
export function newDatabase(SQL: SqlJsStatic): Database {
  const db = new SQL.Database();
  journalInMemory(db);
  for (const m of migrationsFrom(0)) db.run(m.sql);
  db.run(`PRAGMA user_version = ${SCHEMA_VERSION}`);
  return db;
}
