/**
 * The one path by which the host takes a message from a webview: validate it, and either log and
 * drop it (nothing else happens) or hand it to the handler for its type. No `vscode` import, so
 * the boundary is unit-tested in plain Node (test/unit/protocol/receive.test.ts); the views only
 * wire it to `onDidReceiveMessage`.
 */
import type { Invalid } from './validate';

/** Where rejections are written (the views pass their `LogOutputChannel`). */
export interface BoundaryLog {
  warn(line: string): void;
}

/** One handler per message type; the compiler insists every type has one. */
export type Handlers<T extends { type: string }> = {
  [K in T['type']]: (message: Extract<T, { type: K }>) => void | Promise<void>;
};

export interface Inbox<T extends { type: string }> {
  /** Prefix of every log line: `chat`, `inspector`. */
  source: string;
  /** A validator from ./validate: the typed message, or why it was refused. */
  parse(raw: unknown): T | Invalid;
  log: BoundaryLog;
  handlers: Handlers<T>;
  /** A valid message whose handler failed; the view tells the user. */
  onError(error: unknown, message: T): void | Promise<void>;
}

export type Receipt<T> = { accepted: true; message: T } | { accepted: false; reason: string };

/** Longest log line written for one rejected message (the message itself may be megabytes). */
export const MAX_LOG_LINE = 400;

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** What the raw value was, for the log line, without running getters or copying large strings. */
export function describeRaw(raw: unknown): string {
  if (raw === null) return 'null';
  if (Array.isArray(raw)) return 'an array';
  switch (typeof raw) {
    case 'undefined':
      return 'undefined';
    case 'string':
      return `a string of ${raw.length} characters`;
    case 'number':
    case 'boolean':
    case 'bigint':
      return `a ${typeof raw}`;
    case 'object':
      try {
        const d = Object.getOwnPropertyDescriptor(raw, 'type');
        const type = d && 'value' in d ? d.value : undefined;
        return typeof type === 'string' ? `type "${clip(type, 40)}"` : 'an object without a string type';
      } catch {
        return 'an unreadable object';
      }
    default:
      return `a ${typeof raw}`;
  }
}

/**
 * Validates `raw` and dispatches it. A rejected message writes exactly one warning naming what it
 * was and why, calls no handler and resolves to `{ accepted: false }`. Never rejects or throws.
 */
export async function receiveWebviewMessage<T extends { type: string }>(raw: unknown, inbox: Inbox<T>): Promise<Receipt<T>> {
  const reject = (reason: string): Receipt<T> => {
    try {
      inbox.log.warn(clip(`${inbox.source}: rejected a message from the webview (${describeRaw(raw)}): ${reason}`, MAX_LOG_LINE));
    } catch {
      // A failing log must not turn a rejection into a crash.
    }
    return { accepted: false, reason };
  };
  let parsed: T | Invalid;
  try {
    parsed = inbox.parse(raw);
  } catch (error) {
    return reject(`message could not be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!parsed || typeof parsed !== 'object' || 'error' in parsed || typeof (parsed as { type?: unknown }).type !== 'string') {
    return reject(parsed && typeof parsed === 'object' && 'error' in parsed ? String(parsed.error) : 'the validator returned nothing usable');
  }
  const message = parsed;
  const handler = Object.prototype.hasOwnProperty.call(inbox.handlers, message.type)
    ? (inbox.handlers as unknown as Record<string, (m: T) => void | Promise<void>>)[message.type]
    : undefined;
  if (typeof handler !== 'function') return reject(`no handler for message type "${clip(message.type, 40)}"`);
  try {
    await handler(message);
  } catch (error) {
    try {
      await inbox.onError(error, message);
    } catch {
      // Reporting the failure failed too; there is nobody left to tell.
    }
  }
  return { accepted: true, message };
}
