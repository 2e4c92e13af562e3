import { compareTranscriptOrder, type Message } from '../../core/model/message';
import type { CompactionEventRecord, TurnUsageRecord } from '../../core/model/records';
import type { RecentTranscript, SessionStore } from '../../core/ports/sessionStore';
import type { BlobInfo } from '../../core/ports/blobStore';

interface CachedSession {
  /** The whole transcript, or when `from` is set, the messages created after that time. */
  transcript: Message[];
  from?: number;
  /** Position of each message id in `transcript`. */
  at: Map<string, number>;
  /** Held whole: where the recent part handed out begins (messages are only ever added at the end). */
  pageStart?: number;
}

/** A session's lists the views read on every refresh, kept apart from its transcript (either may be read first). */
interface CachedLists {
  compactions?: CompactionEventRecord[];
  /** Usage records without their item lists (the chat and session list need only the figures). */
  usage?: TurnUsageRecord[];
  /** The session's offloaded results (the inspector lists them on every refresh). */
  blobs?: BlobInfo[];
}

/** How many sessions' reads are kept in memory: the active one and a few recently viewed. */
const KEPT_SESSIONS = 4;

/**
 * A store whose reads of a session's transcript, compaction events and usage figures come from
 * memory once loaded, kept current by the writes that go through it. The views refresh many
 * times per turn; without this each refresh read and decoded the whole session again, so a
 * refresh cost grew with the session. Returned arrays are copies; their records are shared and
 * must not be changed. A read asked for while the same read runs (the chat and the inspector
 * refreshing at once as a session opens) waits for that one instead of reading again. Everything
 * else passes straight to the store.
 */
export function withSessionReadCache(store: SessionStore): SessionStore {
  const sessions = new Map<string, CachedSession>();
  const lists = new Map<string, CachedLists>();
  /** Reads running now, by what they read: a second caller shares the first's answer. */
  const running = new Map<string, Promise<unknown>>();
  /** Writes per session: a read that overlapped a write is not kept, since it may predate it. */
  const writes = new Map<string, number>();
  const wrote = (id: string) => writes.set(id, (writes.get(id) ?? 0) + 1);
  const generation = (id: string) => writes.get(id) ?? 0;

  const keepIn = <T>(kept: Map<string, T>, id: string, entry: T): T => {
    kept.delete(id);
    kept.set(id, entry);
    while (kept.size > KEPT_SESSIONS) kept.delete(kept.keys().next().value as string);
    return entry;
  };
  const keep = (id: string, entry: CachedSession): CachedSession => keepIn(sessions, id, entry);

  /** `read` run once for every caller that asks for `key` while it runs. */
  function shared<T>(key: string, read: () => Promise<T>): Promise<T> {
    const now = running.get(key);
    if (now) return now as Promise<T>;
    const started = read().finally(() => running.delete(key));
    running.set(key, started);
    return started;
  }

  /** A read whose result is kept only when no write to the session happened while it ran. */
  async function readOnce<T>(id: string, read: () => Promise<T>, save: (value: T) => void): Promise<T> {
    const before = generation(id);
    const value = await read();
    if (generation(id) === before) save(value);
    return value;
  }

  /**
   * A list kept for a session: from memory once read, a copy each time. Its first read waits for
   * the session's newest messages being read, if they are: a list is read from every file of the
   * session, the newest messages from the newest files, which that read leaves open for this one.
   */
  async function cachedList<K extends keyof CachedLists>(id: string, field: K, read: () => Promise<NonNullable<CachedLists[K]>>): Promise<NonNullable<CachedLists[K]>> {
    const hit = lists.get(id)?.[field];
    if (hit) return [...hit] as NonNullable<CachedLists[K]>;
    const list = await shared(`${field}:${id}`, async () => {
      await Promise.all([...running].filter(([key]) => key.startsWith('recent:') && key.endsWith(`:${id}`)).map(([, reading]) => reading.catch(() => undefined)));
      return readOnce(id, read, (list) => {
        keepIn(lists, id, lists.get(id) ?? {})[field] = [...list] as CachedLists[K];
      });
    });
    return [...list] as NonNullable<CachedLists[K]>;
  }

  /**
   * The recent part of a kept transcript. Read as a page from the store: all of it (it grows with
   * each new message). Held whole (resumed without a snapshot): a page of about the `count`
   * newest, cut as the store cuts one (after the time of the newest message left out), which
   * then grows with new messages and moves back only when more are asked for ("Show earlier").
   * A session that never compacted so opens the chat with a page, not with every message.
   */
  const recentOf = (entry: CachedSession, count: number): RecentTranscript => {
    const list = entry.transcript;
    if (entry.from !== undefined) return { messages: [...list], complete: false, createdAfter: entry.from };
    let start = entry.pageStart ?? list.length;
    if (list.length - start < count) {
      start = 0;
      if (list.length > count) {
        const leftOut = list[list.length - count - 1].createdAt;
        start = list.length - count;
        while (start < list.length && list[start].createdAt <= leftOut) start++;
      }
    }
    entry.pageStart = start;
    return start === 0 ? { messages: [...list], complete: true } : { messages: list.slice(start), complete: false, createdAfter: list[start - 1].createdAt };
  };

  const overrides: Partial<SessionStore> = {
    async putMessages(sessionId, messages) {
      wrote(sessionId);
      await store.putMessages(sessionId, messages);
      const entry = sessions.get(sessionId);
      if (!entry) return;
      for (const m of messages) {
        const i = entry.at.get(m.id);
        if (i === undefined && entry.from !== undefined && m.createdAt <= entry.from) continue; // older than the part kept
        if (i === undefined) {
          entry.at.set(m.id, entry.transcript.length);
          entry.transcript.push(m);
        } else entry.transcript[i] = m;
      }
    },
    async loadTranscript(sessionId, options) {
      const hit = sessions.get(sessionId);
      if (options?.createdAfter !== undefined) {
        // Messages after a time (resume from a snapshot): from memory when the session is there.
        const after = options.createdAfter;
        return hit && (hit.from === undefined || after >= hit.from) ? hit.transcript.filter((m) => m.createdAt > after) : store.loadTranscript(sessionId, options);
      }
      if (hit && hit.from === undefined) return [...keep(sessionId, hit).transcript];
      const transcript = await shared(`transcript:${sessionId}`, () => readOnce(sessionId, () => store.loadTranscript(sessionId), (list) => {
        keep(sessionId, { transcript: [...list], at: new Map(list.map((m, i) => [m.id, i])), from: undefined });
      }));
      return [...transcript];
    },
    async loadMessages(sessionId, ids) {
      // From memory when every one is kept (the recent part holds the messages a view shows).
      const hit = sessions.get(sessionId);
      const kept = hit ? ids.map((id) => hit.at.get(id)) : [];
      if (!hit || !kept.every((i) => i !== undefined)) return store.loadMessages(sessionId, ids);
      return [...new Set(kept)].map((i) => hit.transcript[i]).sort(compareTranscriptOrder);
    },
    async loadRecentTranscript(sessionId, count, options) {
      // A page before a given time (an old message's neighbours) is not what is kept: read it.
      if (options?.createdUpTo !== undefined) return store.loadRecentTranscript(sessionId, count, options);
      const hit = sessions.get(sessionId);
      if (!hit) {
        const recent = await shared(`recent:${count}:${sessionId}`, () => readOnce(sessionId, () => store.loadRecentTranscript(sessionId, count), (recent) => {
          keep(sessionId, { transcript: [...recent.messages], at: new Map(recent.messages.map((m, i) => [m.id, i])), from: recent.complete ? undefined : recent.createdAfter });
        }));
        return { ...recent, messages: [...recent.messages] };
      }
      keep(sessionId, hit);
      if (hit.from === undefined || hit.transcript.length >= count) return recentOf(hit, count);
      // Fewer kept than asked for: the page before them is read and put in front of them.
      const from = hit.from;
      const page = await readOnce(sessionId, () => store.loadRecentTranscript(sessionId, count - hit.transcript.length, { createdUpTo: from }), (page) => {
        if (sessions.get(sessionId) !== hit || hit.from !== from || (page.messages.length === 0 && !page.complete)) return;
        hit.transcript = [...page.messages, ...hit.transcript];
        hit.at = new Map(hit.transcript.map((m, i) => [m.id, i]));
        hit.from = page.complete ? undefined : page.createdAfter;
      });
      // More messages share one creation time than a page holds: the rest is read whole.
      if (page.messages.length === 0 && !page.complete) return { messages: await overrides.loadTranscript!(sessionId), complete: true };
      if (sessions.get(sessionId) === hit && hit.from === (page.complete ? undefined : page.createdAfter)) return recentOf(hit, count);
      // Not kept (a write overlapped the read): this answer only.
      return page.complete ? { messages: [...page.messages, ...hit.transcript], complete: true } : { messages: [...page.messages, ...hit.transcript], complete: false, createdAfter: page.createdAfter };
    },
    async addCompactionEvent(event) {
      wrote(event.sessionId);
      await store.addCompactionEvent(event);
      const list = lists.get(event.sessionId)?.compactions;
      if (!list) return;
      const i = list.findIndex((e) => e.id === event.id);
      if (i >= 0) list[i] = event;
      else list.push(event);
    },
    listCompactionEvents(sessionId) {
      return cachedList(sessionId, 'compactions', () => store.listCompactionEvents(sessionId));
    },
    async addTurnUsage(record) {
      wrote(record.sessionId);
      await store.addTurnUsage(record);
      lists.get(record.sessionId)?.usage?.push({ ...record, itemCount: record.itemCount ?? record.items.length, items: [] });
    },
    async listTurnUsage(sessionId, options) {
      if (options?.items !== false) return store.listTurnUsage(sessionId, options);
      return cachedList(sessionId, 'usage', () => store.listTurnUsage(sessionId, { items: false }));
    },
    async turnUsageAt(sessionId, requestIndex, options) {
      // Figures alone: from the usage figures held for the session, when they are.
      const usage = options?.items === false ? lists.get(sessionId)?.usage : undefined;
      return usage ? usage.find((u) => u.requestIndex === requestIndex) : store.turnUsageAt(sessionId, requestIndex, options);
    },
    async nextRequestIndex(sessionId) {
      // The usage figures held for the session say it without a walk over its files.
      const usage = lists.get(sessionId)?.usage;
      return usage ? usage.reduce((next, u) => Math.max(next, u.requestIndex + 1), 0) : store.nextRequestIndex(sessionId);
    },
    async putBlob(sessionId, blob) {
      wrote(sessionId);
      const info = await store.putBlob(sessionId, blob);
      const list = lists.get(sessionId)?.blobs;
      if (list && !list.some((b) => b.id === info.id)) list.push(info);
      return info;
    },
    listBlobs(sessionId) {
      return cachedList(sessionId, 'blobs', () => store.listBlobs(sessionId));
    },
    async deleteSession(id) {
      wrote(id);
      sessions.delete(id);
      lists.delete(id);
      await store.deleteSession(id);
    },
  };

  return new Proxy(store, {
    get(target, property, receiver) {
      const own = (overrides as Record<PropertyKey, unknown>)[property];
      if (own !== undefined) return own;
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
