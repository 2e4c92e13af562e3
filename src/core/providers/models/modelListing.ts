/**
 * Reads the model lists servers publish into one shape. Each parser takes the JSON body as the
 * server sent it and never throws: fields that are missing or of the wrong type are skipped.
 *
 *  - OpenAI and OpenAI-compatible `GET /v1/models`: `{ data: [{ id, owned_by }] }`; vLLM adds
 *    `max_model_len`, the window it serves (prompt plus output).
 *  - Anthropic `GET /v1/models`: `{ data: [{ id, display_name }], has_more, last_id }`.
 *  - LM Studio `GET /api/v0/models`: `{ data: [{ id, type, state, max_context_length }] }`, and
 *    `loaded_context_length` for a loaded model where the server reports it.
 *  - Ollama `POST /api/show`: `model_info["<architecture>.context_length"]` (the trained window) and
 *    a `parameters` text with `num_ctx` when the Modelfile sets one; `GET /api/ps`: the loaded
 *    models, with `context_length` (the window really served) in newer versions.
 */

export interface ListedModel {
  id: string;
  /** What the picker shows: the display name where the server has one, else the id. */
  label: string;
  /** Tokens the server says the model's window holds, when it says. */
  contextWindow?: number;
  /** Where `contextWindow` comes from, in words ("served window", "model maximum"). */
  windowNote?: string;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function entries(body: unknown, key = 'data'): Record<string, unknown>[] {
  const list = record(body)?.[key];
  return Array.isArray(list) ? list.map(record).filter((e): e is Record<string, unknown> => e !== undefined) : [];
}

function positiveInt(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

function byId(models: ListedModel[]): ListedModel[] {
  const seen = new Set<string>();
  return models.filter((m) => (seen.has(m.id) ? false : (seen.add(m.id), true))).sort((a, b) => a.id.localeCompare(b.id));
}

/** OpenAI, vLLM, Ollama's and LM Studio's OpenAI-compatible `/v1/models`. */
export function parseOpenAIModelList(body: unknown): ListedModel[] {
  const models: ListedModel[] = [];
  for (const e of entries(body)) {
    const id = text(e.id);
    if (!id) continue;
    const window = positiveInt(e.max_model_len);
    models.push({ id, label: id, ...(window ? { contextWindow: window, windowNote: 'served window (max_model_len)' } : {}) });
  }
  return byId(models);
}

export interface AnthropicModelPage {
  models: ListedModel[];
  /** Set when another page follows: pass it as `after_id`. */
  nextAfterId?: string;
}

/** Anthropic `/v1/models`, one page. */
export function parseAnthropicModelList(body: unknown): AnthropicModelPage {
  const models: ListedModel[] = [];
  for (const e of entries(body)) {
    const id = text(e.id);
    if (!id) continue;
    const window = positiveInt(e.max_input_tokens);
    models.push({ id, label: text(e.display_name) ?? id, ...(window ? { contextWindow: window, windowNote: 'input window (max_input_tokens)' } : {}) });
  }
  const page = record(body);
  const nextAfterId = page?.has_more === true ? text(page.last_id) : undefined;
  return { models, ...(nextAfterId ? { nextAfterId } : {}) };
}

/** LM Studio `/api/v0/models`: chat models only (embedding models cannot chat). */
export function parseLmStudioModelList(body: unknown): ListedModel[] {
  const models: ListedModel[] = [];
  for (const e of entries(body)) {
    const id = text(e.id);
    if (!id || e.type === 'embeddings') continue;
    const loaded = e.state === 'loaded' ? positiveInt(e.loaded_context_length) : undefined;
    const max = positiveInt(e.max_context_length);
    const window = loaded ?? max;
    const note = loaded ? 'loaded window (loaded_context_length)' : 'model maximum (max_context_length); LM Studio loads it with its own context length setting';
    models.push({ id, label: id, ...(window ? { contextWindow: window, windowNote: note } : {}) });
  }
  return byId(models);
}

export interface OllamaModelInfo {
  /** The window the model was trained for (`<architecture>.context_length`). */
  trainedWindow?: number;
  /** `num_ctx` from the model's parameters (its Modelfile), when set. */
  numCtx?: number;
}

/**
 * The value of `name` in Ollama's `parameters` text, one "name   value" per line (the first such
 * line). A plain scan, line by line, so that its cost grows with the text and no more: the text
 * comes from the server and may be built to make a backtracking pattern run for seconds.
 */
export function parameterValue(parameters: string, name: string): string | undefined {
  for (let start = 0; start < parameters.length; ) {
    const newline = parameters.indexOf('\n', start);
    const end = newline < 0 ? parameters.length : newline;
    const line = parameters.slice(start, end).trim();
    const separator = line.charAt(name.length);
    if (line.startsWith(name) && (separator === ' ' || separator === '\t')) return line.slice(name.length).trim();
    start = end + 1;
  }
  return undefined;
}

/** Ollama `POST /api/show` for one model. */
export function parseOllamaShow(body: unknown): OllamaModelInfo {
  const show = record(body);
  const info = record(show?.model_info);
  const architecture = text(info?.['general.architecture']);
  let trainedWindow = architecture ? positiveInt(info?.[`${architecture}.context_length`]) : undefined;
  if (!trainedWindow && info) {
    const key = Object.keys(info).find((k) => k.endsWith('.context_length'));
    trainedWindow = key ? positiveInt(info[key]) : undefined;
  }
  const parameters = typeof show?.parameters === 'string' ? show.parameters : '';
  const numCtx = positiveInt(parameterValue(parameters, 'num_ctx'));
  return { ...(trainedWindow ? { trainedWindow } : {}), ...(numCtx ? { numCtx } : {}) };
}

/** "qwen2.5-coder" and "qwen2.5-coder:latest" name the same Ollama model. */
export function sameOllamaModel(a: string, b: string): boolean {
  const full = (name: string) => (name.includes(':') ? name : `${name}:latest`);
  return full(a.trim()) === full(b.trim());
}

/** Ollama `GET /api/ps`: the window a loaded model is served with, when this version reports it. */
export function parseOllamaLoadedWindow(body: unknown, model: string): { loaded: boolean; contextWindow?: number } {
  for (const e of entries(body, 'models')) {
    const name = text(e.name) ?? text(e.model);
    if (!name || !sameOllamaModel(name, model)) continue;
    const window = positiveInt(e.context_length);
    return { loaded: true, ...(window ? { contextWindow: window } : {}) };
  }
  return { loaded: false };
}

/** "32,768 tokens" for the picker. */
export function formatWindow(tokens: number): string {
  return `${tokens.toLocaleString('en-US')} tokens`;
}
