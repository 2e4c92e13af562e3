import * as vscode from 'vscode';
import { withSettings, type ContextSettings } from '../core/settings';

export type ProviderKind = 'vscode-lm' | 'anthropic' | 'openai' | 'openai-compatible';

export interface TallyConfiguration {
  provider: ProviderKind;
  model: string;
  baseUrl: string;
  summaryModel: string;
  tokenizer: 'auto' | 'o200k_base' | 'cl100k_base';
  approval: { commands: 'ask' | 'always'; edits: 'ask' | 'always' };
  commandTimeoutMs: number;
  context: ContextSettings;
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/** Reads `tally.*` settings into the core's shapes, clamping what would break the engine. */
export function readConfiguration(): TallyConfiguration {
  const c = vscode.workspace.getConfiguration('tally');
  const trigger = numberOr(c.get('compaction.trigger'), 0.95);
  const block = Math.max(trigger, numberOr(c.get('compaction.block'), 0.98));
  const window = c.get<number | null>('contextWindow');
  const maxOut = c.get<number | null>('maxOutputTokens');
  const context = withSettings({
    contextWindow: typeof window === 'number' && window > 0 ? window : undefined,
    maxOutputTokens: typeof maxOut === 'number' && maxOut > 0 ? maxOut : undefined,
    compactTrigger: trigger,
    hardBlock: block,
    compactNoteAt: numberOr(c.get('compaction.noteAt'), 0.8),
    truncation: { maxLines: numberOr(c.get('toolOutput.maxLines'), 400), maxBytes: numberOr(c.get('toolOutput.maxBytes'), 32_768) },
    offloadThresholdBytes: numberOr(c.get('toolOutput.offloadThresholdBytes'), 4096),
    offloadPreviewBytes: numberOr(c.get('toolOutput.offloadPreviewBytes'), 1536),
    masking: { keepLast: numberOr(c.get('compaction.keepToolResults'), 8), minBatchTokens: numberOr(c.get('compaction.minBatchTokens'), 2000) },
    toolSummaryAfterTurns: numberOr(c.get('compaction.toolSummaryAfterTurns'), 12),
    summary: {
      keepRecentShare: Math.min(0.5, numberOr(c.get('compaction.keepRecentShare'), 0.3)),
      keepUserTokens: numberOr(c.get('compaction.keepUserTokens'), 20_000),
      targetShare: Math.min(trigger - 0.05, numberOr(c.get('compaction.target'), 0.5)),
    },
    toolDeferralShare: numberOr(c.get('tools.deferralShare'), 0.1),
  });
  const tokenizer = c.get<string>('tokenizer', 'auto');
  return {
    provider: (c.get<string>('provider') as ProviderKind) ?? 'vscode-lm',
    model: c.get<string>('model', ''),
    baseUrl: c.get<string>('baseUrl', ''),
    summaryModel: c.get<string>('summaryModel', ''),
    tokenizer: tokenizer === 'o200k_base' || tokenizer === 'cl100k_base' ? tokenizer : 'auto',
    approval: {
      commands: c.get('approval.commands') === 'always' ? 'always' : 'ask',
      edits: c.get('approval.edits') === 'always' ? 'always' : 'ask',
    },
    commandTimeoutMs: numberOr(c.get('commandTimeoutSeconds'), 120) * 1000,
    context,
  };
}
