import { subagentLinkOf } from '../core/agent/subagents/sessionLink';
import type { SessionInfo } from '../core/ports/sessionStore';

/** What a window keeps between reloads (the extension's `workspaceState`). */
export interface WindowMemory {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

const SHOWN_KEY = 'tally.shownSession';

/** A memory that lasts as long as the window (for a controller made without the extension's). */
export function memoryOfThisWindowOnly(): WindowMemory {
  const values = new Map<string, unknown>();
  return {
    get: <T>(key: string) => values.get(key) as T | undefined,
    update: async (key, value) => void values.set(key, value),
  };
}

/** A session the chat can open on its own: not a replay of a recorded run, not a subagent's. */
function chatSession(info: SessionInfo): boolean {
  return !info.origin?.startsWith('replay:') && !subagentLinkOf(info);
}

/**
 * The session this window's chat showed last, kept in the window's memory (per workspace), so a
 * reload reopens it rather than the session written to last (a fork made since, another window's).
 */
export class ShownSessionMemory {
  constructor(private readonly memory: WindowMemory) {}

  /** The chat shows `info` now. A replay or a subagent's session is not remembered: a reload would not open it as it was shown. */
  remember(info: SessionInfo): void {
    if (!chatSession(info) || this.memory.get<string>(SHOWN_KEY) === info.id) return;
    void Promise.resolve(this.memory.update(SHOWN_KEY, info.id)).catch(() => undefined);
  }

  /**
   * The session to open when the chat first shows one: the one it showed last, while it is still
   * stored; else the one written to last; undefined when there is none (a new one is made).
   */
  toOpen(sessions: readonly SessionInfo[]): SessionInfo | undefined {
    const remembered = this.memory.get<string>(SHOWN_KEY);
    const candidates = sessions.filter(chatSession);
    return candidates.find((s) => s.id === remembered) ?? [...candidates].sort((a, b) => b.updatedAt - a.updatedAt)[0];
  }
}
