import { DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_OUTPUT } from '../../settings';

export type Encoding = 'o200k_base' | 'cl100k_base';

/** How a provider caches prompt prefixes: Anthropic needs `cache_control` breakpoints, OpenAI caches on its own. */
export type CachingMode = 'explicit' | 'automatic' | 'none';

export interface ModelInfo {
  contextWindow: number;
  /** The most output tokens the model can produce in one reply. */
  maxOutputTokens: number;
  /**
   * Output tokens to reserve per request by default: the model's maximum can be a third of the
   * window, too much to hold back on every turn. Settings may raise it up to maxOutputTokens.
   */
  defaultOutputReserve: number;
  /** Tokenizer for estimates; Claude has no public tokenizer, o200k_base plus the learned calibration (reported ÷ estimated) stands in. */
  encoding: Encoding;
  supportsPromptCaching: boolean;
  caching: CachingMode;
}

export interface ResolvedModel extends ModelInfo {
  /** The id as given. */
  id: string;
  /** False when nothing matched: the window is the 128K fallback and the UI should warn. */
  known: boolean;
  /** Which registry entry matched, for display ("claude-sonnet-4", "local:qwen2.5-coder"). */
  family?: string;
}

export interface ModelOverrides {
  contextWindow?: number;
  maxOutputTokens?: number;
  encoding?: Encoding;
}

interface Entry extends Omit<ModelInfo, 'defaultOutputReserve' | 'supportsPromptCaching'> {
  family: string;
  /** Matched against the normalized id (lower case, no provider prefix, no ":tag"). */
  pattern: RegExp;
  reserve?: number;
}

const claude = (family: string, pattern: RegExp, maxOutputTokens: number, contextWindow = 200_000): Entry => ({
  family,
  pattern,
  contextWindow,
  maxOutputTokens,
  encoding: 'o200k_base',
  caching: 'explicit',
});
const openai = (family: string, pattern: RegExp, contextWindow: number, maxOutputTokens: number, encoding: Encoding = 'o200k_base', reserve?: number): Entry => ({
  family,
  pattern,
  contextWindow,
  maxOutputTokens,
  encoding,
  caching: encoding === 'o200k_base' ? 'automatic' : 'none',
  reserve,
});
const local = (family: string, pattern: RegExp, contextWindow: number, maxOutputTokens = 8_192): Entry => ({
  family: `local:${family}`,
  pattern,
  contextWindow,
  maxOutputTokens,
  encoding: 'o200k_base',
  caching: 'none',
});

/** First match wins, so specific entries come before general ones. */
const ENTRIES: Entry[] = [
  // Anthropic (dated ids such as claude-sonnet-4-5-20250929 and aliases such as claude-sonnet-4-5).
  claude('claude-opus-4', /^claude-opus-4(-[01])?(-\d{8})?$/, 32_000),
  claude('claude-opus-4.x', /^claude-opus-4-\d+/, 64_000),
  claude('claude-sonnet-4', /^claude-sonnet-4(-\d+)?(-\d{8})?$/, 64_000),
  claude('claude-haiku-4', /^claude-haiku-4/, 64_000),
  claude('claude-3-7-sonnet', /^claude-3-7-sonnet/, 64_000),
  claude('claude-3-5', /^claude-3-5-(sonnet|haiku)/, 8_192),
  claude('claude-3', /^claude-3-(opus|sonnet|haiku)/, 4_096),
  claude('claude', /^claude-/, 32_000),
  // OpenAI.
  openai('gpt-5', /^gpt-5/, 400_000, 128_000, 'o200k_base', 32_000),
  openai('gpt-4.1', /^gpt-4\.1/, 1_047_576, 32_768),
  openai('gpt-4o', /^(gpt-4o|chatgpt-4o)/, 128_000, 16_384),
  openai('o1-mini', /^o1-mini/, 128_000, 65_536, 'o200k_base', 32_000),
  openai('o1-preview', /^o1-preview/, 128_000, 32_768, 'o200k_base', 16_384),
  openai('o-series', /^o[134](-|$)/, 200_000, 100_000, 'o200k_base', 32_000),
  openai('gpt-4-turbo', /^gpt-4-(turbo|\d{4}-preview|1106|0125)/, 128_000, 4_096, 'cl100k_base'),
  openai('gpt-4-32k', /^gpt-4-32k/, 32_768, 8_192, 'cl100k_base'),
  openai('gpt-4', /^gpt-4(-\d{4})?$/, 8_192, 8_192, 'cl100k_base', 4_096),
  openai('gpt-3.5-turbo', /^gpt-3\.5-turbo/, 16_385, 4_096, 'cl100k_base'),
  // Local models behind Ollama, LM Studio or vLLM: their trained windows. The server may be
  // configured smaller (Ollama's num_ctx); set tally.contextWindow to match.
  local('gpt-oss', /^gpt-oss/, 131_072, 32_768),
  local('qwen3-coder', /^qwen3-coder/, 262_144, 32_768),
  local('qwen3', /^qwen3/, 40_960),
  local('qwen2.5-coder', /^qwen2\.5-coder/, 32_768),
  local('qwen2.5', /^qwen2\.5/, 32_768),
  local('deepseek-coder-v2', /^deepseek-coder-v2/, 163_840),
  local('deepseek-r1', /^deepseek-r1/, 131_072, 32_768),
  local('llama3.x', /^(meta-)?llama-?3\.[123]/, 131_072),
  local('llama3', /^(meta-)?llama-?3/, 8_192, 4_096),
  local('codestral', /^codestral/, 32_768),
  local('devstral', /^devstral/, 131_072),
  local('mistral-small', /^mistral-small/, 131_072),
  local('mistral', /^mistral/, 32_768),
  local('gemma3', /^gemma-?3/, 131_072),
  local('phi4', /^phi-?4/, 16_384, 4_096),
];

/** "anthropic/Claude-Sonnet-4-5" → "claude-sonnet-4-5"; "qwen2.5-coder:14b" → "qwen2.5-coder". */
export function normalizeModelId(id: string): string {
  let out = id.trim().toLowerCase();
  const slash = out.lastIndexOf('/');
  if (slash >= 0) out = out.slice(slash + 1);
  const colon = out.indexOf(':');
  if (colon >= 0) out = out.slice(0, colon);
  // Bedrock / Vertex spellings: anthropic.claude-…-v1, claude-…@20250929.
  out = out.replace(/^(us\.|eu\.|global\.)?anthropic\./, '').replace(/-v\d+$/, '').replace(/@(\d{8})$/, '-$1');
  return out;
}

function positive(value: number | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : undefined;
}

/** What Tally knows about a model, with settings applied on top. */
export function resolveModel(id: string, overrides: ModelOverrides = {}): ResolvedModel {
  const normalized = normalizeModelId(id);
  const entry = ENTRIES.find((e) => e.pattern.test(normalized));
  const base: ModelInfo = entry
    ? {
        contextWindow: entry.contextWindow,
        maxOutputTokens: entry.maxOutputTokens,
        defaultOutputReserve: Math.min(entry.maxOutputTokens, entry.reserve ?? 16_384),
        encoding: entry.encoding,
        supportsPromptCaching: entry.caching !== 'none',
        caching: entry.caching,
      }
    : {
        contextWindow: DEFAULT_CONTEXT_WINDOW,
        maxOutputTokens: DEFAULT_MAX_OUTPUT,
        defaultOutputReserve: DEFAULT_MAX_OUTPUT,
        encoding: 'o200k_base',
        supportsPromptCaching: false,
        caching: 'none',
      };
  const contextWindow = positive(overrides.contextWindow) ?? base.contextWindow;
  const maxOutput = positive(overrides.maxOutputTokens);
  return {
    ...base,
    id,
    known: entry !== undefined || positive(overrides.contextWindow) !== undefined,
    family: entry?.family,
    contextWindow,
    maxOutputTokens: maxOutput ?? base.maxOutputTokens,
    defaultOutputReserve: Math.min(maxOutput ?? base.defaultOutputReserve, Math.floor(contextWindow / 2)),
    encoding: overrides.encoding ?? base.encoding,
  };
}

/** US dollars per million tokens. Cache prices default to the input price when a provider has none. */
export interface ModelPrices {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

const price = (pattern: RegExp, input: number, output: number, cacheRead?: number, cacheWrite?: number) => ({ pattern, prices: { input, output, cacheRead, cacheWrite } });

/** List prices of the well-known hosted models (first match wins); local models have none. */
const PRICES: Array<{ pattern: RegExp; prices: ModelPrices }> = [
  price(/^claude-opus-4-(5|6)/, 5, 25, 0.5, 6.25),
  price(/^claude-opus-4/, 15, 75, 1.5, 18.75),
  price(/^claude-sonnet-4/, 3, 15, 0.3, 3.75),
  price(/^claude-haiku-4/, 1, 5, 0.1, 1.25),
  price(/^claude-3-7-sonnet/, 3, 15, 0.3, 3.75),
  price(/^claude-3-5-sonnet/, 3, 15, 0.3, 3.75),
  price(/^claude-3-5-haiku/, 0.8, 4, 0.08, 1),
  price(/^claude-3-opus/, 15, 75, 1.5, 18.75),
  price(/^claude-3-haiku/, 0.25, 1.25, 0.03, 0.3),
  price(/^gpt-5(\.\d+)?-nano/, 0.05, 0.4, 0.005),
  price(/^gpt-5(\.\d+)?-mini/, 0.25, 2, 0.025),
  price(/^gpt-5/, 1.25, 10, 0.125),
  price(/^gpt-4\.1-nano/, 0.1, 0.4, 0.025),
  price(/^gpt-4\.1-mini/, 0.4, 1.6, 0.1),
  price(/^gpt-4\.1/, 2, 8, 0.5),
  price(/^gpt-4o-mini/, 0.15, 0.6, 0.075),
  price(/^(gpt-4o|chatgpt-4o)/, 2.5, 10, 1.25),
  price(/^o4-mini/, 1.1, 4.4, 0.275),
  price(/^o3-mini/, 1.1, 4.4, 0.55),
  price(/^o3/, 2, 8, 0.5),
  price(/^o1-mini/, 1.1, 4.4, 0.55),
  price(/^o1/, 15, 60, 7.5),
];

function nonNegative(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** The `tally.modelPrices` setting checked: entries without numeric input and output prices are left out. */
export function parsePriceOverrides(raw: unknown): Record<string, ModelPrices> {
  const out: Record<string, ModelPrices> = {};
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return out;
  for (const [id, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!value || typeof value !== 'object') continue;
    const v = value as Record<string, unknown>;
    const input = nonNegative(v.input);
    const output = nonNegative(v.output);
    if (input === undefined || output === undefined) continue;
    out[normalizeModelId(id)] = { input, output, cacheRead: nonNegative(v.cacheRead), cacheWrite: nonNegative(v.cacheWrite) };
  }
  return out;
}

/** The model's price: the user's override for its id, else the list price, else undefined (no cost shown). */
export function modelPrices(id: string, overrides: Record<string, ModelPrices> = {}): ModelPrices | undefined {
  const normalized = normalizeModelId(id);
  if (Object.prototype.hasOwnProperty.call(overrides, normalized)) return overrides[normalized];
  return PRICES.find((p) => p.pattern.test(normalized))?.prices;
}
