import { promises as fsp } from 'fs';
import { basename, join } from 'path';
import type { Database } from 'sql.js';
import type { Message } from '../../../core/model/message';
import type { SessionInfo, SessionSearchHit } from '../../../core/ports/sessionStore';
import { ownDb, type StoreParts } from '../storeParts';

/** A writer's search files: `index/<writer>.search<N>.sqlite`. */
export const SEARCH_FILE = /^(w[a-z0-9]+)\.search\d+\.sqlite$/;
/** Characters of one message's text indexed (a pasted log is found by its start). */
const INDEXED_CHARS = 4_000;
/**
 * A search file is no longer written once past this size, and the next one is started: sql.js
 * saves a database whole, so a file written on every message stays small (as segments do).
 */
export const SEARCH_FILE_MAX_BYTES = 2 * 1024 * 1024;
/** Sessions a search returns at most. */
export const SEARCH_LIMIT = 50;

/**
 * sql.js is built with FTS3/FTS4 (not FTS5): the text of the messages people read (the user's and
 * the model's, not tool output) goes in an FTS4 table with the unicode61 tokenizer, which folds
 * case and diacritics beyond ASCII; `search_docs` names the session and time of each row (docid).
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS search_docs (message_id TEXT PRIMARY KEY, session_id TEXT NOT NULL, created_at INTEGER NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS search_text USING fts4(text, tokenize=unicode61);
`;

/** Each session's latest message in a search file holding every word of an FTS4 query. */
const MATCH_SQL = 'SELECT d.session_id, max(d.created_at), d.rowid FROM search_text JOIN search_docs d ON d.rowid = search_text.docid WHERE search_text MATCH ? GROUP BY d.session_id';
/** The words around the match in one message (its docid), the matched words between « and ». */
const SNIPPET_SQL = "SELECT snippet(search_text, '«', '»', '…', 0, 12) FROM search_text WHERE search_text MATCH ? AND docid = ?";

/**
 * A search's work once on a small database (`db`, thrown away after), for sql.js's warm-up: the
 * first search of a window then runs code already compiled (see sqlWarmUp.ts).
 */
export function warmUpSearch(db: Database): void {
  db.run(SCHEMA);
  db.run('INSERT INTO search_docs (message_id, session_id, created_at) VALUES (?, ?, ?)', ['warm', 'warm', 1]);
  db.run('INSERT INTO search_text (docid, text) VALUES (last_insert_rowid(), ?)', ['warming the search of past sessions']);
  const query = ftsQuery('search past')!;
  db.exec(MATCH_SQL, [query]);
  db.exec(SNIPPET_SQL, [query, 1]);
}

/** The FTS4 query for what the user typed: every word must occur (the last part of each as a prefix); undefined when no word is left. */
export function ftsQuery(typed: string): string | undefined {
  const phrases = typed.split(/\s+/).map((term) => term.split(/[^\p{L}\p{N}]+/u).filter(Boolean)).filter((tokens) => tokens.length > 0);
  return phrases.length ? phrases.map((tokens) => `"${tokens.join(' ')}*"`).join(' ') : undefined;
}

function indexedText(message: Message): string | undefined {
  if (!message.userVisible || (message.kind !== 'user' && message.kind !== 'assistant')) return undefined;
  const text = message.content.trim();
  return text ? text.slice(0, INDEXED_CHARS) : undefined;
}

interface TextHit {
  createdAt: number;
  file: string;
  docid: number;
}

/**
 * Searching past sessions by title and text. Each window indexes the messages it writes in its own
 * search file (a message once, when first written); a search reads every writer's search file and
 * the session list's titles, and names each session once: its title, when, and the text that matched.
 */
export class SessionSearch {
  /** The number of this window's search file written now. */
  private part = 0;
  constructor(private readonly parts: StoreParts) {}

  private get ownPath(): string {
    return join(this.parts.layout.indexDir, `${this.parts.layout.writer}.search${this.part}.sqlite`);
  }

  /** This window's search file, for writing. */
  private async ownDatabase(): Promise<Database> {
    const db = await ownDb(this.parts, this.ownPath);
    db.run(SCHEMA);
    return db;
  }

  /** Indexes messages written to a session (each message once). */
  async index(sessionId: string, messages: readonly Message[]): Promise<void> {
    const rows = messages.map((m) => [m, indexedText(m)] as const).filter((r): r is readonly [Message, string] => r[1] !== undefined);
    if (!rows.length) return;
    const db = await this.ownDatabase();
    db.run('BEGIN');
    try {
      for (const [message, text] of rows) {
        db.run('INSERT OR IGNORE INTO search_docs (message_id, session_id, created_at) VALUES (?, ?, ?)', [message.id, sessionId, message.createdAt]);
        if (db.getRowsModified() === 1) db.run('INSERT INTO search_text (docid, text) VALUES (last_insert_rowid(), ?)', [text]);
      }
    } finally {
      db.run('COMMIT');
    }
    const [[pages, pageSize]] = db.exec('SELECT page_count, page_size FROM pragma_page_count(), pragma_page_size()')[0].values as number[][];
    if (pages * pageSize > SEARCH_FILE_MAX_BYTES) this.part++;
  }

  /** Every writer's search files: on disk, and this window's not saved yet. */
  private async files(): Promise<string[]> {
    const dir = this.parts.layout.indexDir;
    const names = await fsp.readdir(dir).catch(() => [] as string[]);
    const own = this.parts.own.pathsUnder(dir).filter((path) => SEARCH_FILE.test(basename(path)));
    return [...new Set([...names.filter((name) => SEARCH_FILE.test(name)).map((name) => join(dir, name)), ...own])].sort();
  }

  /** Runs `visit` on a search file: this window's own, or another writer's (read from disk, kept open while unchanged). */
  private async visit<T>(path: string, visit: (db: Database) => T): Promise<T | undefined> {
    // This window's file while it holds it (its latest rows); once saved and closed, from disk like the others.
    const held = this.parts.own.peek(path);
    if (held) return held.exec("SELECT 1 FROM sqlite_master WHERE name = 'search_text'").length ? visit(held) : undefined;
    // Not checked when opened (the check read every page: seconds for ten thousand sessions); a
    // damaged file is set aside when a query meets the damage, and the search goes on without it.
    return this.parts.reads.read(path, (db) => (db.exec("SELECT 1 FROM sqlite_master WHERE name = 'search_text'").length ? visit(db) : undefined), { check: false });
  }

  /** The sessions with at least one message in a search file (each file a turn of its own). */
  async indexedSessions(): Promise<Set<string>> {
    const ids = new Set<string>();
    for (const file of await this.files()) {
      await this.visit(file, (db) => {
        for (const row of db.exec('SELECT DISTINCT session_id FROM search_docs')[0]?.values ?? []) ids.add(String(row[0]));
      });
    }
    return ids;
  }

  /**
   * The sessions whose title holds what was typed (as typed, any case) or whose messages hold
   * every word of it, newest first; `sessions`: the session list (deleted ones are not on it).
   */
  async search(typed: string, sessions: readonly SessionInfo[], limit = SEARCH_LIMIT): Promise<SessionSearchHit[]> {
    const needle = typed.normalize('NFC').toLocaleLowerCase().trim();
    if (!needle) return [];
    const byId = new Map(sessions.map((s) => [s.id, s]));
    const text = new Map<string, TextHit>();
    const query = ftsQuery(needle);
    if (query) {
      for (const file of await this.files()) {
        await this.visit(file, (db) => {
          const statement = db.prepare(MATCH_SQL);
          try {
            statement.bind([query]);
            while (statement.step()) {
              const [sessionId, createdAt, docid] = statement.get() as [string, number, number];
              const known = text.get(sessionId);
              if (byId.has(sessionId) && (!known || known.createdAt < createdAt)) text.set(sessionId, { createdAt, file, docid });
            }
          } finally {
            statement.free();
          }
        });
      }
    }
    const hits: Array<{ info: SessionInfo; title: boolean; text?: TextHit }> = [];
    for (const info of sessions) {
      const title = info.title.normalize('NFC').toLocaleLowerCase().includes(needle);
      const found = text.get(info.id);
      if (title || found) hits.push({ info, title, text: found });
    }
    hits.sort((a, b) => b.info.updatedAt - a.info.updatedAt || a.info.id.localeCompare(b.info.id));
    const shown = hits.slice(0, limit);
    const out: SessionSearchHit[] = [];
    for (const hit of shown) {
      const snippet = hit.text && query ? await this.snippet(hit.text, query) : undefined;
      out.push({ session: hit.info, matchedTitle: hit.title, ...(snippet ? { snippet, at: hit.text!.createdAt } : {}) });
    }
    return out;
  }

  /** The words around the match in one message, the matched words between « and ». */
  private async snippet(hit: TextHit, query: string): Promise<string | undefined> {
    return this.visit(hit.file, (db) => {
      const rows = db.exec(SNIPPET_SQL, [query, hit.docid]);
      const value = rows[0]?.values[0]?.[0];
      return typeof value === 'string' ? value.replace(/\s+/g, ' ') : undefined;
    });
  }
}
