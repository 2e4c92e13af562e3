/**
 * Validates intents arriving from the webviews before the host acts on them. A webview is
 * an untrusted page: every field is checked for type and size, unknown types and extra keys
 * are refused, and nothing here throws.
 */
import type { ChatToHost } from './chat';
import type { InspectorToHost } from './inspector';
import {
  LIMITS,
  readBoolean,
  readId,
  readIndex,
  readObject,
  readOpenableUrl,
  readOptionalFocus,
  readString,
  readType,
  type Check,
  type Fields,
} from './validateFields';

export type Invalid = { error: string };

type Spec<T> = { keys: readonly string[]; build: (f: Fields) => Check<T> };

/** Runs the checks in order; the first failure wins. */
function all<T>(checks: Array<Check<unknown>>, make: () => T): Check<T> {
  for (const c of checks) if (!c.ok) return c;
  return { ok: true, value: make() };
}

function value<T>(c: Check<T>): T {
  return (c as { ok: true; value: T }).value;
}

const INSPECTOR: Record<InspectorToHost['type'], Spec<InspectorToHost>> = {
  ready: { keys: [], build: () => ({ ok: true, value: { type: 'ready' } }) },
  refresh: { keys: [], build: () => ({ ok: true, value: { type: 'refresh' } }) },
  selectTurn: {
    keys: ['requestIndex'],
    build: (f) => {
      const i = readIndex(f, 'requestIndex');
      return all([i], () => ({ type: 'selectTurn', requestIndex: value(i) }));
    },
  },
  requestItemText: {
    keys: ['requestIndex', 'itemId'],
    build: (f) => {
      const i = f.requestIndex === undefined ? undefined : readIndex(f, 'requestIndex');
      // Item ids hold AGENTS.md paths, which may be longer than a plain id.
      const id = readString(f, 'itemId', LIMITS.itemIdBytes);
      return all(i ? [i, id] : [id], () => (i ? { type: 'requestItemText', requestIndex: value(i), itemId: value(id) } : { type: 'requestItemText', itemId: value(id) }));
    },
  },
  loadBlob: {
    keys: ['refId', 'offset'],
    build: (f) => {
      const r = readId(f, 'refId');
      const o = readIndex(f, 'offset');
      return all([r, o], () => ({ type: 'loadBlob', refId: value(r), offset: value(o) }));
    },
  },
  openBlobInEditor: {
    keys: ['refId'],
    build: (f) => {
      const r = readId(f, 'refId');
      return all([r], () => ({ type: 'openBlobInEditor', refId: value(r) }));
    },
  },
  pin: {
    keys: ['messageId', 'pinned'],
    build: (f) => {
      const m = readId(f, 'messageId');
      const p = readBoolean(f, 'pinned');
      return all([m, p], () => ({ type: 'pin', messageId: value(m), pinned: value(p) }));
    },
  },
  previewCompaction: {
    keys: ['focus'],
    build: (f) => {
      const focus = readOptionalFocus(f, 'focus');
      return all([focus], () => withFocus({ type: 'previewCompaction' }, value(focus)));
    },
  },
  confirmCompaction: {
    keys: ['focus'],
    build: (f) => {
      const focus = readOptionalFocus(f, 'focus');
      return all([focus], () => withFocus({ type: 'confirmCompaction' }, value(focus)));
    },
  },
};

const CHAT: Record<ChatToHost['type'], Spec<ChatToHost>> = {
  ready: { keys: [], build: () => ({ ok: true, value: { type: 'ready' } }) },
  cancel: { keys: [], build: () => ({ ok: true, value: { type: 'cancel' } }) },
  newSession: { keys: [], build: () => ({ ok: true, value: { type: 'newSession' } }) },
  openInspector: { keys: [], build: () => ({ ok: true, value: { type: 'openInspector' } }) },
  retry: { keys: [], build: () => ({ ok: true, value: { type: 'retry' } }) },
  copyCode: {
    keys: ['code'],
    build: (f) => {
      const c = readString(f, 'code', LIMITS.codeBytes, { allowEmpty: true });
      return all([c], () => ({ type: 'copyCode', code: value(c) }));
    },
  },
  insertCode: {
    keys: ['code'],
    build: (f) => {
      const c = readString(f, 'code', LIMITS.codeBytes);
      return all([c], () => ({ type: 'insertCode', code: value(c) }));
    },
  },
  openLink: {
    keys: ['url'],
    build: (f) => {
      const u = readOpenableUrl(f, 'url');
      return all([u], () => ({ type: 'openLink', url: value(u) }));
    },
  },
  send: {
    keys: ['text'],
    build: (f) => {
      const t = readString(f, 'text', LIMITS.textBytes);
      if (t.ok && t.value.trim().length === 0) return { ok: false, error: '"text" is blank' };
      return all([t], () => ({ type: 'send', text: value(t) }));
    },
  },
  approval: {
    keys: ['callId', 'approved', 'forSession'],
    build: (f) => {
      const c = readId(f, 'callId');
      const a = readBoolean(f, 'approved');
      if (f.forSession === undefined) return all([c, a], () => ({ type: 'approval', callId: value(c), approved: value(a) }));
      const s = readBoolean(f, 'forSession');
      return all([c, a, s], () => ({ type: 'approval', callId: value(c), approved: value(a), forSession: value(s) }));
    },
  },
  resumeSession: {
    keys: ['sessionId'],
    build: (f) => {
      const s = readId(f, 'sessionId');
      return all([s], () => ({ type: 'resumeSession', sessionId: value(s) }));
    },
  },
  selectModel: {
    keys: ['modelId'],
    build: (f) => {
      const m = readString(f, 'modelId', LIMITS.modelIdChars, { allowEmpty: true });
      return all([m], () => ({ type: 'selectModel', modelId: value(m) }));
    },
  },
  openResult: {
    keys: ['refId'],
    build: (f) => {
      const r = readId(f, 'refId');
      return all([r], () => ({ type: 'openResult', refId: value(r) }));
    },
  },
};

function withFocus<T extends { type: string }>(message: T, focus: string | undefined): T & { focus?: string } {
  return focus === undefined ? message : { ...message, focus };
}

function parse<T>(raw: unknown, specs: Record<string, Spec<T>>): T | Invalid {
  try {
    const type = readType(raw);
    if (!type.ok) return { error: type.error };
    if (!Object.prototype.hasOwnProperty.call(specs, type.value)) return { error: `unknown message type "${type.value.slice(0, 40)}"` };
    const spec = specs[type.value];
    const fields = readObject(raw, ['type', ...spec.keys]);
    if (!fields.ok) return { error: fields.error };
    const built = spec.build(fields.value);
    return built.ok ? built.value : { error: `${type.value}: ${built.error}` };
  } catch (error) {
    // Only a hostile object (a throwing proxy) gets here; postMessage data never does.
    return { error: `message could not be read: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** Checks a message from the inspector webview. */
export function parseInspectorMessage(value: unknown): InspectorToHost | Invalid {
  return parse(value, INSPECTOR);
}

/** Checks a message from the chat webview. */
export function parseChatMessage(value: unknown): ChatToHost | Invalid {
  return parse(value, CHAT);
}
