import type { Message } from '../../core/model/message';
import { SEGMENT_FILE, SNAPSHOT_FILE } from './layout';
import { rows } from './sqlRows';
import { eachSessionDb, ownDb, type StoreParts } from './storeParts';
import type { CompactionEventRecord, SessionSnapshot, TurnUsageRecord } from '../../core/ports/sessionStore';

/**
 * What a session records besides its row: transcript messages, compaction events and turn usage
 * (in append segments), and its latest snapshot. Every writer's files are merged on read.
 */
export class SessionRecords {
  constructor(private readonly parts: StoreParts) {}

  private segment(sessionId: string) {
    return ownDb(this.parts, this.parts.own.segmentPath(sessionId));
  }

  async putMessages(sessionId: string, messages: Message[]): Promise<void> {
    if (messages.length === 0) return;
    const db = await this.segment(sessionId);
    for (const m of messages) {
      db.run('INSERT OR REPLACE INTO messages (id, session_id, created_at, written_at, body) VALUES (?, ?, ?, ?, ?)', [m.id, sessionId, m.createdAt, this.parts.stamp(), JSON.stringify(m)]);
    }
  }

  async loadTranscript(sessionId: string): Promise<Message[]> {
    const latest = new Map<string, { written: number; message: Message }>();
    await eachSessionDb(this.parts, sessionId, SEGMENT_FILE, (db) => {
      for (const r of rows(db, 'SELECT id, written_at, body FROM messages WHERE session_id = ?', [sessionId])) {
        const written = Number(r.written_at);
        const previous = latest.get(String(r.id));
        if (previous && previous.written >= written) continue;
        try {
          latest.set(String(r.id), { written, message: JSON.parse(String(r.body)) as Message });
        } catch {
          // A row that does not parse is skipped; the rest of the transcript still loads.
        }
      }
    });
    return [...latest.values()].map((v) => v.message).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async saveSnapshot(snapshot: SessionSnapshot): Promise<void> {
    const db = await ownDb(this.parts, this.parts.layout.snapshotPath(snapshot.sessionId));
    db.run('INSERT OR REPLACE INTO session_snapshots (session_id, compaction_id, token_count, created_at, written_at, messages) VALUES (?, ?, ?, ?, ?, ?)', [
      snapshot.sessionId, snapshot.compactionId, snapshot.tokenCount, snapshot.createdAt, this.parts.stamp(), JSON.stringify(snapshot.messages),
    ]);
  }

  async loadSnapshot(sessionId: string): Promise<SessionSnapshot | undefined> {
    let best: { written: number; snapshot: SessionSnapshot } | undefined;
    await eachSessionDb(this.parts, sessionId, SNAPSHOT_FILE, (db) => {
      for (const r of rows(db, 'SELECT * FROM session_snapshots WHERE session_id = ?', [sessionId])) {
        const written = Number(r.written_at);
        if (best && best.written >= written) continue;
        try {
          best = { written, snapshot: { sessionId, compactionId: String(r.compaction_id), tokenCount: Number(r.token_count), createdAt: Number(r.created_at), messages: JSON.parse(String(r.messages)) } };
        } catch {
          // An unreadable snapshot is ignored: resume falls back to the transcript.
        }
      }
    });
    return best?.snapshot;
  }

  async addCompactionEvent(event: CompactionEventRecord): Promise<void> {
    const db = await this.segment(event.sessionId);
    db.run('INSERT OR REPLACE INTO compaction_events (id, session_id, started_at, body) VALUES (?, ?, ?, ?)', [event.id, event.sessionId, event.startedAt, JSON.stringify(event)]);
  }

  listCompactionEvents(sessionId: string): Promise<CompactionEventRecord[]> {
    return this.collect<CompactionEventRecord>(sessionId, 'SELECT id, body FROM compaction_events WHERE session_id = ?', (a, b) => a.startedAt - b.startedAt);
  }

  async addTurnUsage(record: TurnUsageRecord): Promise<void> {
    const db = await this.segment(record.sessionId);
    db.run('INSERT OR REPLACE INTO turn_usage (id, session_id, request_index, created_at, body) VALUES (?, ?, ?, ?, ?)', [record.id, record.sessionId, record.requestIndex, record.createdAt, JSON.stringify(record)]);
  }

  listTurnUsage(sessionId: string): Promise<TurnUsageRecord[]> {
    return this.collect<TurnUsageRecord>(sessionId, 'SELECT id, body FROM turn_usage WHERE session_id = ?', (a, b) => a.requestIndex - b.requestIndex || a.createdAt - b.createdAt);
  }

  private async collect<T>(sessionId: string, sql: string, order: (a: T, b: T) => number): Promise<T[]> {
    const byId = new Map<string, T>();
    await eachSessionDb(this.parts, sessionId, SEGMENT_FILE, (db) => {
      for (const r of rows(db, sql, [sessionId])) {
        try {
          byId.set(String(r.id), JSON.parse(String(r.body)) as T);
        } catch {
          // skip an unreadable row
        }
      }
    });
    return [...byId.values()].sort(order);
  }
}
