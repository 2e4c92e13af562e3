import { settingDefault, SETTINGS_SCHEMA, type SettingKey } from './settingsSchema';

/**
 * Every threshold of the context manager, with its default.
 * The VS Code layer maps `tally.*` settings onto this shape; the CLI maps flags onto it.
 */
export interface ContextSettings {
  /** Model context window in tokens; undefined means "unknown" and falls back to 128K with a warning. */
  contextWindow?: number;
  /** Tokens reserved for the model's reply; subtracted from the window to get the effective window. */
  maxOutputTokens?: number;
  /** False: never compact by itself; at the hard block the request is held until the user compacts or sends anyway. */
  autoCompact: boolean;
  /** Compact when used ≥ this share of the effective window. */
  compactTrigger: number;
  /** Block (compaction must run first) at this share. */
  hardBlock: number;
  /** Tell the model it may call compact_context at this share. */
  compactNoteAt: number;
  /** Tool-output truncation: head and tail are kept within these limits. */
  truncation: { maxLines: number; maxBytes: number };
  /** Offload results larger than this many bytes to the blob store; 0 disables. */
  offloadThresholdBytes: number;
  /** Bytes of head+tail preview kept in context for an offloaded result. */
  offloadPreviewBytes: number;
  /** Tool-result masking: keep the last N tool results; archive older ones in batches of at least this many tokens. */
  masking: { keepLast: number; minBatchTokens: number };
  /** Tool-call summarization: summarize calls older than N turns. */
  toolSummaryAfterTurns: number;
  /** Threshold summarization: summarize the older part of the conversation into a checkpoint. */
  summary: {
    /** Recent messages kept verbatim by token budget, as a share of the effective window (≤ 0.5). */
    keepRecentShare: number;
    /** User messages kept verbatim up to this many tokens. */
    keepUserTokens: number;
    /** Target after compaction, as a share of the effective window. */
    targetShare: number;
  };
  /** Tool deferral: defer when tool definitions exceed this share of the effective window. */
  toolDeferralShare: number;
  /** Tokenizer encoding. */
  encoding: 'o200k_base' | 'cl100k_base';
}

export const DEFAULT_CONTEXT_WINDOW = 128_000;
export const DEFAULT_MAX_OUTPUT = 8_192;

type NumericSetting = { [K in SettingKey]: (typeof SETTINGS_SCHEMA)[K]['default'] extends number ? K : never }[SettingKey];

/** The context thresholds from `tally.*` values (`d` reads one setting: the defaults, the user's settings, CLI flags). */
export function contextSettingsFrom(d: (key: NumericSetting) => number): ContextSettings {
  return {
    contextWindow: undefined,
    maxOutputTokens: undefined,
    autoCompact: true,
    compactTrigger: d('compaction.trigger'),
    hardBlock: d('compaction.block'),
    compactNoteAt: d('compaction.noteAt'),
    truncation: { maxLines: d('toolOutput.maxLines'), maxBytes: d('toolOutput.maxBytes') },
    offloadThresholdBytes: d('toolOutput.offloadThresholdBytes'),
    offloadPreviewBytes: d('toolOutput.offloadPreviewBytes'),
    masking: { keepLast: d('compaction.keepToolResults'), minBatchTokens: d('compaction.minBatchTokens') },
    toolSummaryAfterTurns: d('compaction.toolSummaryAfterTurns'),
    summary: { keepRecentShare: d('compaction.keepRecentShare'), keepUserTokens: d('compaction.keepUserTokens'), targetShare: d('compaction.target') },
    toolDeferralShare: d('tools.deferralShare'),
    encoding: 'o200k_base',
  };
}

export const DEFAULT_SETTINGS: ContextSettings = contextSettingsFrom((key) => settingDefault(key) as number);

export function withSettings(overrides: Partial<ContextSettings> = {}): ContextSettings {
  return {
    ...DEFAULT_SETTINGS,
    ...overrides,
    truncation: { ...DEFAULT_SETTINGS.truncation, ...overrides.truncation },
    masking: { ...DEFAULT_SETTINGS.masking, ...overrides.masking },
    summary: { ...DEFAULT_SETTINGS.summary, ...overrides.summary },
  };
}
