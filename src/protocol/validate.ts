/**
 * Validates intents arriving from the webviews before the host acts on them. A webview is
 * an untrusted page: every field is checked for type and size, unknown types and extra keys
 * are refused, and nothing here throws.
 */
import type { ChatToHost } from './chat';
import { COMMAND_QUERY_CHARS } from './commands';
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
import { readAttachTarget, readImageBase64, readImageMediaType, readQuery, readQueryId, readUriList } from './validateAttachments';

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

type Reader = (f: Fields, key: string) => Check<unknown>;

/**
 * A message made of its fields, each checked by its reader in order (the first failure wins);
 * optional fields are checked only when present.
 */
function fields<T>(type: string, required: Record<string, Reader>, optional: Record<string, Reader> = {}): Spec<T> {
  return {
    keys: [...Object.keys(required), ...Object.keys(optional)],
    build: (f) => {
      const out: Record<string, unknown> = { type };
      for (const [key, read] of Object.entries(required)) {
        const c = read(f, key);
        if (!c.ok) return c;
        out[key] = c.value;
      }
      for (const [key, read] of Object.entries(optional)) {
        if (f[key] === undefined) continue;
        const c = read(f, key);
        if (!c.ok) return c;
        out[key] = c.value;
      }
      return { ok: true, value: out as T };
    },
  };
}

// Item ids hold AGENTS.md paths, which may be longer than a plain id.
const readItemId: Reader = (f, key) => readString(f, key, LIMITS.itemIdBytes);

/** Which paged list of the inspector a "show earlier" asks for. */
const readPagedList: Reader = (f, key) => (f[key] === 'requests' || f[key] === 'results' || f[key] === 'current' ? { ok: true, value: f[key] } : { ok: false, error: `"${key}" must be "requests", "results" or "current"` });

const INSPECTOR: Record<InspectorToHost['type'], Spec<InspectorToHost>> = {
  ready: { keys: [], build: () => ({ ok: true, value: { type: 'ready' } }) },
  showEarlier: fields('showEarlier', { list: readPagedList }),
  refresh: { keys: [], build: () => ({ ok: true, value: { type: 'refresh' } }) },
  openSubagent: fields('openSubagent', { sessionId: readId }),
  closeSubagent: { keys: [], build: () => ({ ok: true, value: { type: 'closeSubagent' } }) },
  selectRequest: fields('selectRequest', { requestIndex: readIndex }),
  requestItemText: fields('requestItemText', { itemId: readItemId }, { requestIndex: readIndex }),
  loadBlob: fields('loadBlob', { refId: readId, offset: readIndex }),
  openBlobInEditor: fields('openBlobInEditor', { refId: readId }),
  openSummary: fields('openSummary', { compactionId: readId }),
  showRemoved: fields('showRemoved', { compactionId: readId, offset: readIndex }),
  forkFromRequest: fields('forkFromRequest', { sessionId: readId, requestIndex: readIndex }),
  openRequestItem: fields('openRequestItem', { position: readIndex }, { requestIndex: readIndex }),
  pin: fields('pin', { messageId: readId, pinned: readBoolean }),
  previewCompaction: {
    keys: ['focus'],
    build: (f) => {
      const focus = readOptionalFocus(f, 'focus');
      return all([focus], () => withFocus({ type: 'previewCompaction' }, value(focus)));
    },
  },
  countPreviewSummary: fields('countPreviewSummary', { previewId: readId, summary: (f, key) => readString(f, key, LIMITS.summaryBytes, { allowEmpty: true }) }),
  confirmCompaction: {
    keys: ['focus', 'summary'],
    build: (f) => {
      const focus = readOptionalFocus(f, 'focus');
      const summary = readOptionalSummary(f, 'summary');
      return all([focus, summary], () => {
        const message = withFocus({ type: 'confirmCompaction' as const }, value(focus));
        const text = value(summary);
        return text === undefined ? message : { ...message, summary: text };
      });
    },
  },
};

/** A plan's text as the user edited it: bounded like a message, and saying something. */
const readPlanText: Reader = (f, key) => {
  const text = readString(f, key, LIMITS.textBytes, { allowEmpty: true });
  if (text.ok && text.value.trim().length === 0) return { ok: false, error: `"${key}" is blank: a plan needs at least one step` };
  return text;
};

const CHAT: Record<ChatToHost['type'], Spec<ChatToHost>> = {
  ready: { keys: [], build: () => ({ ok: true, value: { type: 'ready' } }) },
  cancel: { keys: [], build: () => ({ ok: true, value: { type: 'cancel' } }) },
  newSession: { keys: [], build: () => ({ ok: true, value: { type: 'newSession' } }) },
  openInspector: { keys: [], build: () => ({ ok: true, value: { type: 'openInspector' } }) },
  showEarlier: { keys: [], build: () => ({ ok: true, value: { type: 'showEarlier' } }) },
  retry: { keys: [], build: () => ({ ok: true, value: { type: 'retry' } }) },
  searchSessions: { keys: [], build: () => ({ ok: true, value: { type: 'searchSessions' } }) },
  compactAndContinue: { keys: [], build: () => ({ ok: true, value: { type: 'compactAndContinue' } }) },
  sendAnyway: { keys: [], build: () => ({ ok: true, value: { type: 'sendAnyway' } }) },
  selectModel: { keys: [], build: () => ({ ok: true, value: { type: 'selectModel' } }) },
  openDemo: { keys: [], build: () => ({ ok: true, value: { type: 'openDemo' } }) },
  discardPending: { keys: [], build: () => ({ ok: true, value: { type: 'discardPending' } }) },
  copyCode: fields('copyCode', { code: (f, key) => readString(f, key, LIMITS.codeBytes, { allowEmpty: true }) }),
  insertCode: fields('insertCode', { code: (f, key) => readString(f, key, LIMITS.codeBytes) }),
  openLink: fields('openLink', { url: readOpenableUrl }),
  send: {
    keys: ['text'],
    build: (f) => {
      const t = readString(f, 'text', LIMITS.textBytes);
      if (t.ok && t.value.trim().length === 0) return { ok: false, error: '"text" is blank' };
      return all([t], () => ({ type: 'send', text: value(t) }));
    },
  },
  approval: fields('approval', { callId: readId, approved: readBoolean }, { forSession: readBoolean }),
  resumeSession: fields('resumeSession', { sessionId: readId }),
  openResult: fields('openResult', { refId: readId }),
  attachQuery: fields('attachQuery', { queryId: readQueryId, query: readQuery }),
  attach: fields('attach', { target: readAttachTarget }),
  removeAttachment: fields('removeAttachment', { id: readId }),
  openAttachment: fields('openAttachment', { id: readId }),
  downscaleImage: fields('downscaleImage', { id: readId }),
  downscaledImage: fields('downscaledImage', { id: readId, mediaType: readImageMediaType, data: readImageBase64 }),
  draft: fields('draft', { text: (f, key) => readString(f, key, LIMITS.textBytes, { allowEmpty: true }) }),
  dropUris: fields('dropUris', { uris: readUriList }),
  restoreFiles: fields('restoreFiles', { messageId: readId }),
  rewind: fields('rewind', { messageId: readId }),
  setPlanMode: fields('setPlanMode', { on: readBoolean }),
  editPlan: fields('editPlan', { messageId: readId, text: readPlanText }),
  approvePlan: fields('approvePlan', { messageId: readId }, { text: readPlanText }),
  discardPlan: fields('discardPlan', { messageId: readId }),
  commandQuery: fields('commandQuery', { queryId: readQueryId, query: (f, key) => readString(f, key, COMMAND_QUERY_CHARS, { allowEmpty: true }) }),
};

/** A summary to compact with: optional, but when present a bounded string that says something. */
function readOptionalSummary(f: Fields, key: string): Check<string | undefined> {
  if (f[key] === undefined) return { ok: true, value: undefined };
  const text = readString(f, key, LIMITS.summaryBytes, { allowEmpty: true });
  if (text.ok && text.value.trim().length === 0) return { ok: false, error: `"${key}" is blank: a compaction needs a summary to replace the history with` };
  return text;
}

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
