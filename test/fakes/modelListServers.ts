/**
 * Local servers that list their models the way real ones do, on top of the scripted chat fakes
 * (chat requests still go to the queue):
 *
 *  - FakeLocalModelServer, flavour
 *    - 'ollama': `GET /v1/models` (owned_by "library"), `GET /api/version`, `GET /api/tags`,
 *      `POST /api/show` (model_info with `<arch>.context_length`, `parameters` with num_ctx when
 *      the model sets one), `GET /api/ps` (loaded models; `context_length` unless `oldVersion`),
 *      `POST /api/generate` without a prompt loads the model with num_ctx, else the server's
 *      default window (`defaultWindow`, as OLLAMA_CONTEXT_LENGTH would set it).
 *    - 'vllm': `GET /v1/models` with `max_model_len`, `root`, `permission`.
 *    - 'lmstudio': `GET /v1/models`, and `GET /api/v0/models` with state, max_context_length and
 *      loaded_context_length for loaded models.
 *  - FakeAnthropicCatalogServer: `GET /v1/models` with display_name, paged by `limit`/`after_id`
 *    (has_more, first_id, last_id), behind the `x-api-key` check.
 */
import { FakeAnthropicServer, type FakeAnthropicOptions } from './anthropicServer';
import { FakeOpenAIServer, type FakeOpenAIOptions } from './openaiServer';
import type { FakeReply, RecordedRequest } from './scriptedServer';

export interface FakeLocalModel {
  id: string;
  /** Ollama: `general.architecture`; LM Studio: `arch`. */
  arch?: string;
  /** The trained window (Ollama model_info, LM Studio max_context_length, vLLM max_model_len). */
  trainedWindow?: number;
  /** Ollama: num_ctx in the model's parameters. */
  numCtx?: number;
  /** LM Studio: loaded with this window. */
  loadedWindow?: number;
  /** LM Studio: an embedding model. */
  embeddings?: boolean;
}

export interface FakeLocalServerOptions extends FakeOpenAIOptions {
  flavour: 'ollama' | 'vllm' | 'lmstudio';
  models: FakeLocalModel[];
  /** Ollama: the window a model without num_ctx is loaded with. */
  defaultWindow?: number;
  /** Ollama: `/api/ps` without context_length, as before version 0.9. */
  oldVersion?: boolean;
}

const ok = (body: unknown): FakeReply => ({ type: 'error', status: 200, body });
const notFound = (message: string): FakeReply => ({ type: 'error', status: 404, body: { error: message } });

export class FakeLocalModelServer extends FakeOpenAIServer {
  /** Ollama: model name → the window it was loaded with. */
  readonly loaded = new Map<string, number>();

  constructor(private readonly local: FakeLocalServerOptions) {
    super(local);
  }

  /** Every request counts here: the tests look at the listing and loading requests too. */
  protected override isScripted(): boolean {
    return true;
  }

  private model(name: unknown): FakeLocalModel | undefined {
    const wanted = String(name ?? '');
    const full = (n: string) => (n.includes(':') || this.local.flavour !== 'ollama' ? n : `${n}:latest`);
    return this.local.models.find((m) => full(m.id) === full(wanted));
  }

  protected override validate(request: RecordedRequest): FakeReply | undefined {
    const path = request.path.split('?')[0];
    if (request.method === 'GET' && path === '/v1/models') {
      if (this.local.apiKey !== undefined && request.headers.authorization !== `Bearer ${this.local.apiKey}`) return { type: 'error', status: 401, body: { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } } };
      return ok({ object: 'list', data: this.local.models.map((m) => this.listEntry(m)) });
    }
    const native = this.native(request, path);
    return native ?? super.validate(request);
  }

  private listEntry(m: FakeLocalModel): unknown {
    if (this.local.flavour === 'vllm') return { id: m.id, object: 'model', created: 1_700_000_000, owned_by: 'vllm', root: m.id, parent: null, max_model_len: m.trainedWindow, permission: [{ id: `modelperm-${m.id}`, object: 'model_permission', allow_sampling: true }] };
    if (this.local.flavour === 'ollama') return { id: m.id, object: 'model', created: 1_700_000_000, owned_by: 'library' };
    return { id: m.id, object: 'model', owned_by: 'organization_owner' };
  }

  private native(request: RecordedRequest, path: string): FakeReply | undefined {
    const flavour = this.local.flavour;
    if (flavour === 'lmstudio' && request.method === 'GET' && path === '/api/v0/models') {
      return ok({
        object: 'list',
        data: this.local.models.map((m) => ({
          id: m.id,
          object: 'model',
          type: m.embeddings ? 'embeddings' : 'llm',
          publisher: 'lmstudio-community',
          arch: m.arch ?? 'llama',
          compatibility_type: 'gguf',
          quantization: 'Q4_K_M',
          state: m.loadedWindow ? 'loaded' : 'not-loaded',
          max_context_length: m.trainedWindow,
          ...(m.loadedWindow ? { loaded_context_length: m.loadedWindow } : {}),
        })),
      });
    }
    if (flavour !== 'ollama' || !path.startsWith('/api/')) return undefined;
    if (request.method === 'GET' && path === '/api/version') return ok({ version: this.local.oldVersion ? '0.6.8' : '0.12.3' });
    if (request.method === 'GET' && path === '/api/tags') return ok({ models: this.local.models.map((m) => ({ name: m.id, model: m.id, size: 9_000_000_000, details: { family: m.arch } })) });
    if (request.method === 'POST' && path === '/api/show') {
      const m = this.model(request.body?.model);
      if (!m) return notFound(`model '${request.body?.model}' not found`);
      const arch = m.arch ?? 'llama';
      return ok({
        license: '',
        modelfile: `FROM ${m.id}`,
        parameters: [m.numCtx ? `num_ctx                        ${m.numCtx}` : '', 'stop                           "<|im_end|>"'].filter(Boolean).join('\n'),
        template: '{{ .Prompt }}',
        details: { format: 'gguf', family: arch, parameter_size: '14.8B', quantization_level: 'Q4_K_M' },
        model_info: { 'general.architecture': arch, 'general.parameter_count': 14_770_033_664, [`${arch}.context_length`]: m.trainedWindow, [`${arch}.embedding_length`]: 5120 },
        capabilities: ['completion', 'tools'],
      });
    }
    if (request.method === 'POST' && path === '/api/generate' && !request.body?.prompt) {
      const m = this.model(request.body?.model);
      if (!m) return notFound(`model '${request.body?.model}' not found`);
      const window = Math.min(m.numCtx ?? this.local.defaultWindow ?? 4096, m.trainedWindow ?? Infinity);
      this.loaded.set(m.id, window);
      return ok({ model: m.id, created_at: '2025-01-01T00:00:00Z', response: '', done: true, done_reason: 'load' });
    }
    if (request.method === 'GET' && path === '/api/ps') {
      return ok({
        models: [...this.loaded].map(([id, window]) => ({
          name: id.includes(':') ? id : `${id}:latest`,
          model: id.includes(':') ? id : `${id}:latest`,
          size: 9_000_000_000,
          size_vram: 9_000_000_000,
          expires_at: '2099-01-01T00:00:00Z',
          ...(this.local.oldVersion ? {} : { context_length: window }),
        })),
      });
    }
    return notFound('404 page not found');
  }
}

export class FakeAnthropicCatalogServer extends FakeAnthropicServer {
  constructor(private readonly catalog: FakeAnthropicOptions & { models: Array<{ id: string; display_name: string }> }) {
    super(catalog);
  }

  protected override validate(request: RecordedRequest): FakeReply | undefined {
    const [path, query = ''] = request.path.split('?');
    if (request.method !== 'GET' || path !== '/v1/models') return super.validate(request);
    if (this.catalog.apiKey !== undefined && request.headers['x-api-key'] !== this.catalog.apiKey) return { type: 'error', status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } };
    if (!request.headers['anthropic-version']) return { type: 'error', status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' } } };
    const params = new URLSearchParams(query);
    const limit = Number(params.get('limit') ?? 20);
    const after = params.get('after_id');
    const start = after ? this.catalog.models.findIndex((m) => m.id === after) + 1 : 0;
    const page = this.catalog.models.slice(start, start + limit).map((m) => ({ type: 'model', id: m.id, display_name: m.display_name, created_at: '2025-05-14T00:00:00Z' }));
    return ok({ data: page, has_more: start + limit < this.catalog.models.length, first_id: page[0]?.id ?? null, last_id: page[page.length - 1]?.id ?? null });
  }
}
