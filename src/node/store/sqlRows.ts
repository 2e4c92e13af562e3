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

/** An empty database at the current schema. */
export function newDatabase(SQL: SqlJsStatic): Database {
  const db = new SQL.Database();
  for (const m of migrationsFrom(0)) db.run(m.sql);
  db.run(`PRAGMA user_version = ${SCHEMA_VERSION}`);
  return db;
}
