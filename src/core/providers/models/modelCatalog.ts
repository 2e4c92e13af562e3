/**
 * Asks a server which models it has, over HTTP with a time limit, and says in plain words why
 * when it cannot (server down, wrong key, not a model server). The picker shows the result and
 * always keeps a free-text entry, so a failed listing never blocks choosing a model.
 */
import { BodyTooLargeError, formatBytes, readTextUpTo } from '../http/boundedBody';
import { redactSecrets } from '../errors';
import type { FetchLike } from '../http/httpStream';
import { parseAnthropicModelList, parseLmStudioModelList, parseOllamaLoadedWindow, parseOllamaShow, parseOpenAIModelList, type ListedModel } from './modelListing';
import { fetchSameOrigin, RedirectError } from '../http/sameOriginFetch';

export type CatalogProvider = 'anthropic' | 'openai' | 'openai-compatible';

export type CatalogFailure = 'unreachable' | 'timeout' | 'unauthorized' | 'http' | 'format' | 'redirected' | 'too_large';

export type CatalogResult =
  | { ok: true; models: ListedModel[]; server?: 'ollama' | 'lmstudio' | 'vllm' }
  | { ok: false; failure: CatalogFailure; message: string };

export interface CatalogRequest {
  provider: CatalogProvider;
  /** The user's base URL; empty means the provider's public endpoint. */
  baseUrl: string;
  apiKey?: string;
  /** For each request, the whole exchange: connecting, the headers and the whole body (default 5 s). */
  timeoutMs?: number;
  fetch?: FetchLike;
}

const DEFAULT_BASE: Record<CatalogProvider, string> = { anthropic: 'https://api.anthropic.com', openai: 'https://api.openai.com/v1', 'openai-compatible': '' };
const ANTHROPIC_PAGES = 5;
/** Ollama is asked about each model separately; beyond this many the list shows no windows. */
const OLLAMA_DETAIL_LIMIT = 40;
/** A model list or a probe answer is read up to this size; real ones are a few hundred KB at most. */
export const ANSWER_MAX_BYTES = 4 * 1024 * 1024;
/** The details of one model (Ollama `/api/show`), asked for up to OLLAMA_DETAIL_LIMIT models at once. */
export const DETAIL_MAX_BYTES = 1024 * 1024;

/** Where the API lives: the base URL without a trailing slash. */
export function apiBase(provider: CatalogProvider, baseUrl: string): string {
  return (baseUrl.trim() || DEFAULT_BASE[provider]).replace(/\/+$/, '');
}

/** The server itself, for its own (non-OpenAI) endpoints: the base URL without a final `/v1`. */
export function serverRoot(baseUrl: string): string {
  return baseUrl.trim().replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** A listing or probe request that failed, with a message a person can act on. */
export class CatalogError extends Error {
  constructor(readonly failure: CatalogFailure, message: string) {
    super(message);
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** "5 s", "0.2 s". */
function seconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${Number((ms / 1000).toFixed(1))} s`;
}

function headersFor(provider: CatalogProvider, apiKey: string | undefined): Record<string, string> {
  if (provider === 'anthropic') return { 'anthropic-version': '2023-06-01', ...(apiKey ? { 'x-api-key': apiKey } : {}) };
  return apiKey ? { authorization: `Bearer ${apiKey}` } : {};
}

export interface JsonRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: unknown;
  /** The whole exchange: connecting, the headers and the whole body. */
  timeoutMs: number;
  /** Default ANSWER_MAX_BYTES. */
  maxBytes?: number;
  /** Values never shown in a message (the API key). */
  secrets?: ReadonlyArray<string | undefined>;
}

/**
 * One JSON request within one deadline for the whole exchange, its answer read up to a size cap,
 * redirects followed only within the origin; throws CatalogError with a message a person can act on.
 */
export async function requestJson(fetchFn: FetchLike, url: string, init: JsonRequest): Promise<unknown> {
  const origin = originOf(url);
  const method = init.method ?? 'GET';
  const path = url.slice(origin.length) || '/';
  const maxBytes = init.maxBytes ?? ANSWER_MAX_BYTES;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), init.timeoutMs);
  const noAnswer = () => new CatalogError('timeout', `${origin} gave no complete answer to ${method} ${path} within ${seconds(init.timeoutMs)}.`);
  let response: Response;
  let body: string;
  try {
    try {
      response = await fetchSameOrigin(fetchFn, url, {
        method,
        headers: { accept: 'application/json', ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
        body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
        signal: controller.signal,
      });
    } catch (error) {
      if (error instanceof RedirectError) throw new CatalogError('redirected', redactSecrets(error.message, init.secrets));
      if (controller.signal.aborted) throw noAnswer();
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      throw new CatalogError('unreachable', `Could not reach ${origin}${cause ? ` (${cause})` : ''}: is the server running at that address?`);
    }
    try {
      body = await readTextUpTo(response, maxBytes);
    } catch (error) {
      if (error instanceof BodyTooLargeError) throw new CatalogError('too_large', `${origin}: the server's answer to ${method} ${path} was larger than ${formatBytes(maxBytes)}; Tally stopped reading it.`);
      if (controller.signal.aborted) throw noAnswer();
      body = '';
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  if (response.status === 401 || response.status === 403) throw new CatalogError('unauthorized', `${origin} refused the request (${response.status}): it needs a valid API key.`);
  if (!response.ok) throw new CatalogError('http', `${origin} answered ${response.status} to ${method} ${path}.`);
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw new CatalogError('format', `${origin} did not answer ${path} with JSON: is it a model server?`);
  }
}

/** Failures that say the server misbehaves (redirects away, stalls, floods) rather than lacks an endpoint. */
export function serverMisbehaves(error: unknown): error is CatalogError {
  return error instanceof CatalogError && (error.failure === 'redirected' || error.failure === 'timeout' || error.failure === 'too_large');
}

/**
 * Like requestJson, but undefined instead of an error: for endpoints only some servers have.
 * A server that misbehaves still throws, so that it is asked nothing more.
 */
async function optionalJson(fetchFn: FetchLike, url: string, init: JsonRequest): Promise<unknown> {
  try {
    return await requestJson(fetchFn, url, init);
  } catch (error) {
    if (serverMisbehaves(error)) throw error;
    return undefined;
  }
}

async function listAnthropic(fetchFn: FetchLike, base: string, keyed: JsonRequest): Promise<ListedModel[]> {
  const models: ListedModel[] = [];
  let after: string | undefined;
  for (let page = 0; page < ANTHROPIC_PAGES; page++) {
    const query = `?limit=100${after ? `&after_id=${encodeURIComponent(after)}` : ''}`;
    const parsed = parseAnthropicModelList(await requestJson(fetchFn, `${base}/v1/models${query}`, keyed));
    models.push(...parsed.models);
    after = parsed.nextAfterId;
    if (!after) break;
  }
  return models;
}

/** Adds what Ollama knows about each model's window: the loaded window, else the Modelfile's num_ctx, else the trained window as a note. */
async function withOllamaWindows(fetchFn: FetchLike, root: string, models: ListedModel[], timeoutMs: number): Promise<ListedModel[]> {
  const ps = await optionalJson(fetchFn, `${root}/api/ps`, { timeoutMs });
  const detailed = models.slice(0, OLLAMA_DETAIL_LIMIT);
  const infos = await Promise.all(detailed.map((m) => optionalJson(fetchFn, `${root}/api/show`, { method: 'POST', body: { model: m.id }, timeoutMs, maxBytes: DETAIL_MAX_BYTES }).then(parseOllamaShow)));
  return models.map((m, i) => {
    const info = infos[i];
    const loaded = parseOllamaLoadedWindow(ps, m.id).contextWindow;
    if (loaded) return { ...m, contextWindow: loaded, windowNote: 'loaded window (ollama ps)' };
    if (info?.numCtx) return { ...m, contextWindow: Math.min(info.numCtx, info.trainedWindow ?? info.numCtx), windowNote: 'num_ctx of the model' };
    if (info?.trainedWindow) return { ...m, windowNote: `trained for ${info.trainedWindow.toLocaleString('en-US')} tokens; Ollama serves its default window until loaded` };
    return m;
  });
}

/** Fills in windows an OpenAI-compatible server reports outside `/v1/models`, and says which server it is. */
async function enrichLocal(fetchFn: FetchLike, base: string, models: ListedModel[], timeoutMs: number): Promise<{ models: ListedModel[]; server?: 'ollama' | 'lmstudio' | 'vllm' }> {
  if (models.some((m) => m.contextWindow)) return { models, server: 'vllm' };
  const root = serverRoot(base);
  const lmStudio = await optionalJson(fetchFn, `${root}/api/v0/models`, { timeoutMs });
  if (lmStudio !== undefined) {
    const windows = new Map(parseLmStudioModelList(lmStudio).map((m) => [m.id, m]));
    if (windows.size) return { server: 'lmstudio', models: models.map((m) => ({ ...m, ...(windows.get(m.id)?.contextWindow ? { contextWindow: windows.get(m.id)!.contextWindow, windowNote: windows.get(m.id)!.windowNote } : {}) })) };
  }
  const version = await optionalJson(fetchFn, `${root}/api/version`, { timeoutMs });
  if (version && typeof version === 'object' && 'version' in version) return { server: 'ollama', models: await withOllamaWindows(fetchFn, root, models, timeoutMs) };
  return { models };
}

/** The models `provider` offers at `baseUrl`, with their windows where the server reports them. */
export async function listModels(request: CatalogRequest): Promise<CatalogResult> {
  const fetchFn = request.fetch ?? ((input, init) => fetch(input, init));
  const timeoutMs = request.timeoutMs ?? 5_000;
  const base = apiBase(request.provider, request.baseUrl);
  if (!base) return { ok: false, failure: 'http', message: 'No server address: enter the base URL of your server, e.g. http://127.0.0.1:11434/v1 for Ollama.' };
  const keyed: JsonRequest = { headers: headersFor(request.provider, request.apiKey), timeoutMs, secrets: [request.apiKey] };
  try {
    if (request.provider === 'anthropic') return { ok: true, models: await listAnthropic(fetchFn, base, keyed) };
    const models = parseOpenAIModelList(await requestJson(fetchFn, `${base}/models`, keyed));
    if (request.provider === 'openai') return { ok: true, models };
    try {
      return { ok: true, ...(await enrichLocal(fetchFn, base, models, timeoutMs)) };
    } catch (error) {
      // The list stands without windows when the server misbehaves on the endpoints that give them.
      if (serverMisbehaves(error)) return { ok: true, models };
      throw error;
    }
  } catch (error) {
    if (error instanceof CatalogError) return { ok: false, failure: error.failure, message: error.message };
    return { ok: false, failure: 'format', message: error instanceof Error ? error.message : String(error) };
  }
}
