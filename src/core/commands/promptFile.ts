/**
 * A command file as written: optional front matter between `---` lines, then the body. The front
 * matter is read as the small part of YAML prompt files use: `key: value` (a value may be quoted),
 * `key: [a, 'b']` and a key followed by `- item` lines. Anything else is a clear error, not a guess.
 */

export interface PromptFile {
  /** What the `/` list says the command does. */
  description?: string;
  /** The name the file asks for (VS Code's `name`); the file's own name otherwise. */
  name?: string;
  /** What the arguments are, shown after the name (`argument-hint`). */
  argumentHint?: string;
  /** The model the file asks for, shown in the list (Tally keeps the session's model). */
  model?: string;
  /** The tools the file asks for, shown in the list (Tally keeps the session's tools). */
  tools?: string[];
  /** VS Code's `agent` (formerly `mode`): ask, edit, agent or a custom agent's name. */
  agent?: string;
  body: string;
}

export class PromptFileError extends Error {}

type Value = string | string[];

const KEY = /^([A-Za-z][A-Za-z0-9_-]*)\s*:(.*)$/;

/** Reads a command file's text; throws PromptFileError naming the line when its front matter is not the subset above. */
export function parsePromptFile(text: string): PromptFile {
  const source = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const lines = source.split('\n');
  if (lines[0]?.trim() !== '---') return { body: source.trim() };
  const end = lines.findIndex((line, i) => i > 0 && line.trim() === '---');
  if (end < 0) throw new PromptFileError('its front matter starts with --- but has no closing --- line');
  const fields = readFields(lines.slice(1, end));
  const body = lines.slice(end + 1).join('\n').trim();
  return {
    ...stringField(fields, 'description'),
    ...stringField(fields, 'name'),
    ...stringField(fields, 'argument-hint', 'argumentHint'),
    ...stringField(fields, 'model'),
    ...stringField(fields, 'agent'),
    ...(fields.has('agent') ? {} : stringField(fields, 'mode', 'agent')),
    ...listField(fields, 'tools'),
    body,
  };
}

function readFields(lines: readonly string[]): Map<string, Value> {
  const fields = new Map<string, Value>();
  let listKey: string | undefined;
  lines.forEach((raw, i) => {
    const line = raw.replace(/\s+#.*$/, '');
    if (!line.trim() || line.trim().startsWith('#')) return;
    const item = /^\s+-\s*(.*)$/.exec(line) ?? /^-\s+(.*)$/.exec(line);
    if (item && listKey) {
      const list = fields.get(listKey);
      fields.set(listKey, [...(Array.isArray(list) ? list : []), scalar(item[1], i)]);
      return;
    }
    const m = KEY.exec(line);
    if (!m) throw new PromptFileError(`front matter line ${i + 2} is not "key: value": ${raw.trim().slice(0, 80)}`);
    const value = m[2].trim();
    listKey = value === '' ? m[1] : undefined;
    fields.set(m[1], value === '' ? [] : value.startsWith('[') ? inlineList(value, i) : scalar(value, i));
  });
  return fields;
}

function inlineList(value: string, i: number): string[] {
  if (!value.endsWith(']')) throw new PromptFileError(`front matter line ${i + 2}: a list opened with [ is not closed on the same line`);
  const inner = value.slice(1, -1).trim();
  if (!inner) return [];
  return inner.split(',').map((part) => scalar(part.trim(), i));
}

function scalar(value: string, i: number): string {
  const quote = value[0];
  if (quote === '"' || quote === "'") {
    if (value.length < 2 || value[value.length - 1] !== quote) throw new PromptFileError(`front matter line ${i + 2}: a quoted value is not closed`);
    const inner = value.slice(1, -1);
    return quote === "'" ? inner.replace(/''/g, "'") : inner.replace(/\\(["\\])/g, '$1').replace(/\\n/g, '\n');
  }
  if (value === '|' || value === '>') throw new PromptFileError(`front matter line ${i + 2}: multi-line values (| or >) are not supported; write the value on one line`);
  return value;
}

function stringField(fields: Map<string, Value>, key: string, as: keyof PromptFile = key as keyof PromptFile): Partial<PromptFile> {
  const value = fields.get(key);
  if (value === undefined) return {};
  if (Array.isArray(value)) throw new PromptFileError(`front matter "${key}" must be one value, not a list`);
  return value ? { [as]: value } : {};
}

function listField(fields: Map<string, Value>, key: 'tools'): Partial<PromptFile> {
  const value = fields.get(key);
  if (value === undefined) return {};
  return { [key]: Array.isArray(value) ? value : value.split(',').map((v) => v.trim()).filter(Boolean) };
}
