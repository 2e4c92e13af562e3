import * as vscode from 'vscode';
import { contextSettingsFrom, withSettings, type ContextSettings } from '../core/settings';
import type { ReasoningRequest } from '../core/providers/types';
import { SETTINGS_SCHEMA, settingDefault, type SettingKey } from '../core/settingsSchema';
import type { OpenAIApiSetting } from '../core/providers/chatProviderFactory';
import type { SubagentLimits } from '../core/agent/subagents/delegateTool';
import { userValue, warnIgnoredWorkspaceSettings } from './userScope';

export type ProviderKind = 'vscode-lm' | 'anthropic' | 'openai' | 'openai-compatible';

export interface TallyConfiguration {
  provider: ProviderKind;
  model: string;
  baseUrl: string;
  /** Which API the openai provider speaks: see core/providers/chatProviderFactory.ts. */
  openaiApi: OpenAIApiSetting;
  summaryModel: string;
  tokenizer: 'auto' | 'o200k_base' | 'cl100k_base';
  /** tally.reasoning: how hard the model should think; 'off' sends no thinking request. */
  reasoning: 'off' | ReasoningRequest['effort'];
  approval: { commands: 'ask' | 'always'; edits: 'ask' | 'always' };
  commandTimeoutMs: number;
  context: ContextSettings;
  /** What bounds subagents: from the user's own settings only (they decide what runs and what it costs). */
  subagents: SubagentLimits;
}

const OPENAI_APIS: readonly OpenAIApiSetting[] = ['auto', 'responses', 'chat-completions'];
const PROVIDERS: readonly ProviderKind[] = ['vscode-lm', 'anthropic', 'openai', 'openai-compatible'];

function reasoningSetting(value: unknown): TallyConfiguration['reasoning'] {
  return value === 'low' || value === 'medium' || value === 'high' ? value : 'off';
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/**
 * Reads `tally.*` settings into the core's shapes, clamping what would break the engine. Where
 * requests go, which model the key pays for and the approval settings come from the user's own
 * settings only; a workspace that sets them is ignored and the user is told once.
 */
export function readConfiguration(): TallyConfiguration {
  const c = vscode.workspace.getConfiguration('tally');
  const num = (key: SettingKey) => numberOr(c.get(key), settingDefault(key) as number);
  const user = (key: SettingKey) => userValue<unknown>(c, key);
  const userString = (key: SettingKey) => {
    const value = user(key);
    return typeof value === 'string' ? value : (settingDefault(key) as string);
  };
  const userNumber = (key: SettingKey) => {
    const value = numberOr(user(key), settingDefault(key) as number);
    const minimum = (SETTINGS_SCHEMA[key] as { minimum?: number }).minimum;
    return minimum !== undefined ? Math.max(minimum, value) : value;
  };
  warnIgnoredWorkspaceSettings();
  const window = c.get<number | null>('contextWindow');
  const maxOut = c.get<number | null>('maxOutputTokens');
  const values = contextSettingsFrom(num);
  const context = withSettings({
    ...values,
    contextWindow: typeof window === 'number' && window > 0 ? window : undefined,
    maxOutputTokens: typeof maxOut === 'number' && maxOut > 0 ? maxOut : undefined,
    autoCompact: user('compaction.auto') !== false,
    hardBlock: Math.max(values.compactTrigger, values.hardBlock),
    summary: { ...values.summary, keepRecentShare: Math.min(0.5, values.summary.keepRecentShare), targetShare: Math.min(values.compactTrigger - 0.05, values.summary.targetShare) },
  });
  const tokenizer = c.get<string>('tokenizer', settingDefault('tokenizer'));
  const provider = user('provider');
  return {
    provider: PROVIDERS.includes(provider as ProviderKind) ? (provider as ProviderKind) : settingDefault('provider'),
    model: userString('model'),
    baseUrl: userString('baseUrl'),
    openaiApi: OPENAI_APIS.includes(user('openai.api') as OpenAIApiSetting) ? (user('openai.api') as OpenAIApiSetting) : 'auto',
    summaryModel: userString('summaryModel'),
    tokenizer: tokenizer === 'o200k_base' || tokenizer === 'cl100k_base' ? tokenizer : 'auto',
    reasoning: reasoningSetting(c.get('reasoning')),
    approval: {
      commands: user('approval.commands') === 'always' ? 'always' : 'ask',
      edits: user('approval.edits') === 'always' ? 'always' : 'ask',
    },
    commandTimeoutMs: num('commandTimeoutSeconds') * 1000,
    context,
    subagents: {
      maxRequests: userNumber('subagents.maxRequests'),
      maxTokens: userNumber('subagents.maxTokens'),
      maxConcurrent: Math.min(8, userNumber('subagents.maxConcurrent')),
      allowNested: user('subagents.allowNested') === true,
      maxPerTurn: userNumber('subagents.maxPerTurn'),
      maxTokensPerTurn: userNumber('subagents.maxTokensPerTurn'),
      maxReportLines: context.truncation.maxLines,
      maxReportBytes: userNumber('subagents.maxReportBytes'),
    },
  };
}
