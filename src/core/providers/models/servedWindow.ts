/**
 * The context window an OpenAI-compatible server really serves for one model, so that Tally plans
 * for that window rather than the model's trained one.
 *
 * Ollama's OpenAI-compatible endpoint cannot set the window per request (`options.num_ctx` is
 * only read by its native API), and it cuts a longer prompt silently. So Tally asks the server:
 * `GET /api/ps` gives the window a loaded model runs with; a model that is not loaded yet is
 * loaded (`POST /api/generate` with no prompt loads it, as the first chat request would) and
 * asked again. A `num_ctx` in the model's own parameters is used when the running window is not
 * reported (older versions). vLLM reports `max_model_len` in `/v1/models`; LM Studio reports
 * `loaded_context_length` for a loaded model.
 *
 * Endpoints a server lacks are skipped; a server that redirects to another origin, stalls past
 * the deadline or sends an oversized answer is asked nothing more, and the window's note says why.
 */
import type { FetchLike } from '../http/httpStream';
import { apiBase, CatalogError, requestJson, serverMisbehaves, serverRoot } from './modelCatalog';
import { parseLmStudioModelList, parseOllamaLoadedWindow, parseOllamaShow, parseOpenAIModelList } from './modelListing';

export interface ServedWindow {
  /** Tokens the server holds for prompt plus output; undefined when it does not say. */
  tokens?: number;
  /** How the figure was found, or why there is none, in words for the user. */
  note: string;
  server?: 'ollama' | 'lmstudio' | 'vllm';
}

export interface ServedWindowRequest {
  baseUrl: string;
  model: string;
  apiKey?: string;
  fetch?: FetchLike;
  /** Per request, for the whole exchange: connecting, the headers and the whole body (default 3 s). */
  timeoutMs?: number;
  /** For loading an Ollama model that is not loaded yet, the whole exchange too (default 60 s). */
  loadTimeoutMs?: number;
}

/** An endpoint only some servers have: undefined when this one answers it with an error; a server that misbehaves is asked nothing more. */
async function optional(run: () => Promise<unknown>): Promise<unknown> {
  try {
    return await run();
  } catch (error) {
    if (serverMisbehaves(error)) throw error;
    return undefined;
  }
}

/** Loading a model may take longer than allowed without the server misbehaving. */
async function loading(run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (serverMisbehaves(error) && error.failure !== 'timeout') throw error;
  }
}

async function ollamaWindow(fetchFn: FetchLike, root: string, model: string, timeoutMs: number, loadTimeoutMs: number): Promise<ServedWindow | undefined> {
  const show = await optional(() => requestJson(fetchFn, `${root}/api/show`, { method: 'POST', body: { model }, timeoutMs }));
  if (show === undefined) return undefined;
  const info = parseOllamaShow(show);
  const cap = (tokens: number) => Math.min(tokens, info.trainedWindow ?? tokens);
  let loaded = parseOllamaLoadedWindow(await optional(() => requestJson(fetchFn, `${root}/api/ps`, { timeoutMs })), model);
  if (!loaded.loaded) {
    await loading(() => requestJson(fetchFn, `${root}/api/generate`, { method: 'POST', body: { model, stream: false }, timeoutMs: loadTimeoutMs }));
    loaded = parseOllamaLoadedWindow(await optional(() => requestJson(fetchFn, `${root}/api/ps`, { timeoutMs })), model);
  }
  if (loaded.contextWindow) return { server: 'ollama', tokens: cap(loaded.contextWindow), note: 'reported by Ollama for the loaded model (api/ps)' };
  if (info.numCtx) return { server: 'ollama', tokens: cap(info.numCtx), note: "the model's num_ctx parameter (api/show)" };
  return { server: 'ollama', note: 'Ollama did not report the window it serves (versions before 0.9 do not); set tally.contextWindow to your OLLAMA_CONTEXT_LENGTH or num_ctx' };
}

/** Asks the server behind `baseUrl` which window it serves `model` with. Never throws. */
export async function servedWindow(request: ServedWindowRequest): Promise<ServedWindow | undefined> {
  try {
    return await probe(request);
  } catch (error) {
    if (error instanceof CatalogError) return { note: `Tally could not ask the server for the window it serves: ${error.message}` };
    return undefined;
  }
}

async function probe(request: ServedWindowRequest): Promise<ServedWindow | undefined> {
  const fetchFn = request.fetch ?? ((input, init) => fetch(input, init));
  const timeoutMs = request.timeoutMs ?? 3_000;
  const base = apiBase('openai-compatible', request.baseUrl);
  if (!base) return undefined;
  const root = serverRoot(base);
  const headers: Record<string, string> = request.apiKey ? { authorization: `Bearer ${request.apiKey}` } : {};
  const listed = parseOpenAIModelList(await optional(() => requestJson(fetchFn, `${base}/models`, { headers, timeoutMs, secrets: [request.apiKey] }))).find((m) => m.id === request.model);
  if (listed?.contextWindow) return { server: 'vllm', tokens: listed.contextWindow, note: 'reported by the server (max_model_len)' };
  const ollama = await ollamaWindow(fetchFn, root, request.model, timeoutMs, request.loadTimeoutMs ?? 60_000);
  if (ollama) return ollama;
  const lmStudio = parseLmStudioModelList(await optional(() => requestJson(fetchFn, `${root}/api/v0/models`, { timeoutMs }))).find((m) => m.id === request.model);
  if (lmStudio?.windowNote?.startsWith('loaded')) return { server: 'lmstudio', tokens: lmStudio.contextWindow, note: 'reported by LM Studio for the loaded model (loaded_context_length)' };
  return undefined;
}
