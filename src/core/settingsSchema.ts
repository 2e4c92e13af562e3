/**
 * The one definition of every `tally.*` setting: type, default, range, enum and scope. The VS Code
 * layer and the core read defaults from here; a unit test checks package.json against it.
 *
 * Scope "application" means only the user's own settings may set it, in every window (remote ones
 * included); a repository's `.vscode/settings.json` or workspace file may not. Settings that choose
 * where requests and keys go, which model the user's key pays for, or whether tools run unasked are
 * application-scoped: a repository is untrusted input.
 */
export type SettingScope = 'application' | 'window' | 'resource';

export interface SettingSpec {
  type: 'string' | 'number' | 'boolean' | 'array' | 'object' | ['number', 'null'];
  items?: { type: 'string' };
  additionalProperties?: typeof PRICE_SHAPE | { type: 'boolean' };
  default: string | number | boolean | null | readonly string[] | Record<string, never>;
  minimum?: number;
  maximum?: number;
  enum?: readonly string[];
  scope: SettingScope;
}

/** A model's prices in US dollars per million tokens (cache prices default to the input price). */
const PRICE_SHAPE = {
  type: 'object',
  required: ['input', 'output'],
  properties: {
    input: { type: 'number', minimum: 0 },
    output: { type: 'number', minimum: 0 },
    cacheRead: { type: 'number', minimum: 0 },
    cacheWrite: { type: 'number', minimum: 0 },
  },
} as const;

export const SETTINGS_SCHEMA = {
  provider: { type: 'string', default: 'vscode-lm', enum: ['vscode-lm', 'anthropic', 'openai', 'openai-compatible'], scope: 'application' },
  model: { type: 'string', default: '', scope: 'application' },
  baseUrl: { type: 'string', default: '', scope: 'application' },
  summaryModel: { type: 'string', default: '', scope: 'application' },
  'openai.api': { type: 'string', default: 'auto', enum: ['auto', 'responses', 'chat-completions'], scope: 'application' },
  contextWindow: { type: ['number', 'null'], default: null, minimum: 1024, scope: 'window' },
  maxOutputTokens: { type: ['number', 'null'], default: null, minimum: 256, scope: 'window' },
  'compaction.auto': { type: 'boolean', default: true, scope: 'application' },
  'compaction.trigger': { type: 'number', default: 0.95, minimum: 0.3, maximum: 0.99, scope: 'window' },
  'compaction.block': { type: 'number', default: 0.98, minimum: 0.3, maximum: 1, scope: 'window' },
  'compaction.noteAt': { type: 'number', default: 0.8, minimum: 0.1, maximum: 1, scope: 'window' },
  'compaction.target': { type: 'number', default: 0.25, minimum: 0.1, maximum: 0.9, scope: 'window' },
  'compaction.keepToolResults': { type: 'number', default: 8, minimum: 0, scope: 'window' },
  'compaction.minBatchTokens': { type: 'number', default: 2000, minimum: 0, scope: 'window' },
  'compaction.toolSummaryAfterTurns': { type: 'number', default: 12, minimum: 1, scope: 'window' },
  'compaction.keepRecentShare': { type: 'number', default: 0.3, minimum: 0.05, maximum: 0.5, scope: 'window' },
  'compaction.keepUserTokens': { type: 'number', default: 20000, minimum: 0, scope: 'window' },
  'toolOutput.maxLines': { type: 'number', default: 400, minimum: 10, scope: 'window' },
  'toolOutput.maxBytes': { type: 'number', default: 32768, minimum: 1024, scope: 'window' },
  'toolOutput.offloadThresholdBytes': { type: 'number', default: 4096, minimum: 0, scope: 'window' },
  'toolOutput.offloadPreviewBytes': { type: 'number', default: 1536, minimum: 256, scope: 'window' },
  'tools.deferralShare': { type: 'number', default: 0.1, minimum: 0.01, maximum: 1, scope: 'window' },
  tokenizer: { type: 'string', default: 'auto', enum: ['auto', 'o200k_base', 'cl100k_base'], scope: 'window' },
  reasoning: { type: 'string', default: 'off', enum: ['off', 'low', 'medium', 'high'], scope: 'window' },
  'approval.commands': { type: 'string', default: 'ask', enum: ['ask', 'always'], scope: 'application' },
  'approval.edits': { type: 'string', default: 'ask', enum: ['ask', 'always'], scope: 'application' },
  commandTimeoutSeconds: { type: 'number', default: 120, minimum: 1, scope: 'window' },
  'tools.allowed': { type: 'array', items: { type: 'string' }, default: [], scope: 'application' },
  'mcp.servers': { type: 'object', default: {}, scope: 'application' },
  'subagents.maxRequests': { type: 'number', default: 30, minimum: 1, scope: 'application' },
  'subagents.maxTokens': { type: 'number', default: 500000, minimum: 1000, scope: 'application' },
  'subagents.maxConcurrent': { type: 'number', default: 3, minimum: 1, maximum: 8, scope: 'application' },
  'subagents.allowNested': { type: 'boolean', default: false, scope: 'application' },
  'subagents.maxReportBytes': { type: 'number', default: 16384, minimum: 1024, scope: 'application' },
  'subagents.maxPerTurn': { type: 'number', default: 10, minimum: 1, scope: 'application' },
  'subagents.maxTokensPerTurn': { type: 'number', default: 2000000, minimum: 1000, scope: 'application' },
  hooks: { type: 'object', default: {}, scope: 'application' },
  hookTimeoutSeconds: { type: 'number', default: 60, minimum: 1, scope: 'application' },
  'sandbox.enabled': { type: 'boolean', default: true, scope: 'application' },
  'sandbox.hiddenPaths': { type: 'array', items: { type: 'string' }, default: [], scope: 'application' },
  modelPrices: { type: 'object', default: {}, scope: 'application', additionalProperties: PRICE_SHAPE },
  'models.images': { type: 'object', default: {}, scope: 'application', additionalProperties: { type: 'boolean' } },
} as const satisfies Record<string, SettingSpec>;

export type SettingKey = keyof typeof SETTINGS_SCHEMA;

/** Keys only the user's own settings may set (never a workspace or folder). */
export const USER_ONLY_SETTINGS = (Object.keys(SETTINGS_SCHEMA) as SettingKey[]).filter((key) => SETTINGS_SCHEMA[key].scope === 'application');

export function settingDefault<K extends SettingKey>(key: K): (typeof SETTINGS_SCHEMA)[K]['default'] {
  return SETTINGS_SCHEMA[key].default;
}
