/**
 * Schema of every Tally database file, versioned with PRAGMA user_version. A file with a higher
 * version than this code knows is never written or moved: it belongs to a newer Tally.
 */
export const SCHEMA_VERSION = 2;

export interface Migration {
  version: number;
  sql: string;
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    sql: `
CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, title TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, model TEXT, origin TEXT, deleted INTEGER NOT NULL DEFAULT 0, written_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, created_at INTEGER NOT NULL, written_at INTEGER NOT NULL, body TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS idx_messages_session ON messages(session_id, created_at);
CREATE TABLE IF NOT EXISTS tool_result_blobs (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, tool_name TEXT NOT NULL, tool_call_id TEXT, content BLOB, byte_size INTEGER NOT NULL, line_count INTEGER NOT NULL, sha256 TEXT NOT NULL, created_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS idx_blobs_session ON tool_result_blobs(session_id);
CREATE TABLE IF NOT EXISTS session_snapshots (session_id TEXT PRIMARY KEY, compaction_id TEXT NOT NULL, token_count INTEGER NOT NULL, created_at INTEGER NOT NULL, written_at INTEGER NOT NULL, messages TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS compaction_events (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, started_at INTEGER NOT NULL, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS turn_usage (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, request_index INTEGER NOT NULL, created_at INTEGER NOT NULL, body TEXT NOT NULL);
`,
  },
  {
    // Large offloaded results are stored in parts, one small file each, so writing or reading a
    // 100 MB result never serializes one huge database on the extension host's thread.
    version: 2,
    sql: `
ALTER TABLE tool_result_blobs ADD COLUMN part_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tool_result_blobs ADD COLUMN part_bytes INTEGER NOT NULL DEFAULT 0;
CREATE TABLE IF NOT EXISTS tool_result_blob_parts (blob_id TEXT NOT NULL, part INTEGER NOT NULL, content BLOB NOT NULL, PRIMARY KEY (blob_id, part));
`,
  },
];

/** Brings a database from `from` to SCHEMA_VERSION, in order. */
export function migrationsFrom(from: number): Migration[] {
  return MIGRATIONS.filter((m) => m.version > from);
}
