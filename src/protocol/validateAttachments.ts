/** Checks of the chat's attachment messages: what to attach, completion queries, dropped files. */
import { ATTACH_QUERY_LIMITS, PASTED_IMAGE_LIMITS, type AttachTarget } from './attachments';
import { isImageMediaType, type ImageMediaType } from '../core/images/imagePart';
import { readIndex, readObject, readString, type Check, type Fields } from './validateFields';

/** A workspace-relative path: bounded, no NUL, not absolute, no `..` segment (the host resolves it inside the folders again). */
function readRelativePath(f: Fields, key: string): Check<string> {
  const s = readString(f, key, ATTACH_QUERY_LIMITS.pathChars);
  if (!s.ok) return s;
  const path = s.value;
  if (path.includes('\0')) return { ok: false, error: `"${key}" holds a NUL character` };
  if (/^(?:[\\/]|[A-Za-z]:)/.test(path)) return { ok: false, error: `"${key}" must be relative to a workspace folder` };
  if (path.split(/[\\/]/).includes('..')) return { ok: false, error: `"${key}" must not contain ".."` };
  return s;
}

const TARGET_KEYS: Record<AttachTarget['kind'], { required: string[]; optional: string[] }> = {
  file: { required: ['path'], optional: [] },
  folder: { required: ['path'], optional: [] },
  selection: { required: [], optional: [] },
  problems: { required: [], optional: ['path'] },
  diff: { required: [], optional: [] },
  terminal: { required: [], optional: [] },
  resource: { required: ['server', 'uri'], optional: [] },
  image: { required: ['mediaType', 'data'], optional: ['name'] },
  url: { required: ['url'], optional: [] },
};

/** A media type Tally sends images as. */
export function readImageMediaType(f: Fields, key: string): Check<ImageMediaType> {
  const mediaType = f[key];
  if (!isImageMediaType(mediaType)) return { ok: false, error: `"${key}" must be image/png, image/jpeg, image/gif or image/webp` };
  return { ok: true, value: mediaType };
}

/** An image's bytes as base64, within the 5 MB an image may be. */
export function readImageBase64(f: Fields, key: string): Check<string> {
  const data = f[key];
  if (typeof data !== 'string' || data.length === 0) return { ok: false, error: `"${key}" must be the image's base64` };
  if (data.length > PASTED_IMAGE_LIMITS.base64Chars) return { ok: false, error: `"${key}": the image is over 5 MB` };
  if (data.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) return { ok: false, error: `"${key}" is not base64` };
  return { ok: true, value: data };
}

/** A pasted image: a media type Tally sends, base64 within the size cap, a bounded name. */
function readPastedImage(fields: Fields, key: string): Check<AttachTarget> {
  const mediaType = readImageMediaType(fields, 'mediaType');
  if (!mediaType.ok) return { ok: false, error: `"${key}.${mediaType.error.slice(1)}` };
  const data = readImageBase64(fields, 'data');
  if (!data.ok) return { ok: false, error: `"${key}.${data.error.slice(1)}` };
  const out: AttachTarget = { kind: 'image', mediaType: mediaType.value, data: data.value };
  if (fields.name !== undefined) {
    const name = readString(fields, 'name', PASTED_IMAGE_LIMITS.nameChars);
    if (!name.ok) return { ok: false, error: `"${key}": ${name.error}` };
    out.name = name.value;
  }
  return { ok: true, value: out };
}

/** `target`: one of the attach targets, with only its own keys. */
export function readAttachTarget(f: Fields, key: string): Check<AttachTarget> {
  const raw = f[key];
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, error: `"${key}" must be an object` };
  const kind = (raw as { kind?: unknown }).kind;
  if (typeof kind !== 'string' || !Object.prototype.hasOwnProperty.call(TARGET_KEYS, kind)) return { ok: false, error: `"${key}.kind" is not an attachment kind` };
  const spec = TARGET_KEYS[kind as AttachTarget['kind']];
  const fields = readObject(raw, ['kind', ...spec.required, ...spec.optional]);
  if (!fields.ok) return { ok: false, error: `"${key}": ${fields.error}` };
  if (kind === 'image') return readPastedImage(fields.value, key);
  const out: Record<string, unknown> = { kind };
  for (const name of [...spec.required, ...spec.optional]) {
    if (fields.value[name] === undefined && spec.optional.includes(name)) continue;
    // An MCP resource is named by its server and URI (the host attaches only one its servers listed).
    const path = kind === 'resource' ? readString(fields.value, name, ATTACH_QUERY_LIMITS.pathChars) : kind === 'url' ? readWebAddress(fields.value, name) : readRelativePath(fields.value, name);
    if (!path.ok) return { ok: false, error: `"${key}": ${path.error}` };
    out[name] = path.value;
  }
  return { ok: true, value: out as AttachTarget };
}

/** A web page's address: http or https, bounded; where it leads is the host's check when it fetches. */
function readWebAddress(f: Fields, key: string): Check<string> {
  const text = readString(f, key, ATTACH_QUERY_LIMITS.pathChars);
  if (!text.ok) return text;
  return /^https?:\/\/[^\s]+$/i.test(text.value) ? text : { ok: false, error: `"${key}" must be an http:// or https:// address` };
}

export function readQuery(f: Fields, key: string): Check<string> {
  return readString(f, key, ATTACH_QUERY_LIMITS.queryChars, { allowEmpty: true });
}

export const readQueryId = readIndex;

/** Dropped URIs: a bounded list of bounded strings; whether each is a workspace file is the host's check. */
export function readUriList(f: Fields, key: string): Check<string[]> {
  const raw = f[key];
  if (!Array.isArray(raw)) return { ok: false, error: `"${key}" must be an array` };
  if (raw.length === 0) return { ok: false, error: `"${key}" is empty` };
  if (raw.length > ATTACH_QUERY_LIMITS.dropUris) return { ok: false, error: `"${key}" lists more than ${ATTACH_QUERY_LIMITS.dropUris} files` };
  const out: string[] = [];
  for (let i = 0; i < raw.length; i++) {
    const item = readString({ uri: raw[i] }, 'uri', ATTACH_QUERY_LIMITS.pathChars);
    if (!item.ok) return { ok: false, error: `"${key}[${i}]": ${item.error}` };
    out.push(item.value);
  }
  return { ok: true, value: out };
}
