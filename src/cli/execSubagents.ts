/**
 * Subagents in `tally exec`: the delegate tool, offered only with `--allow delegate`, and the lines
 * that show a subagent's progress. A subagent uses the run's provider, model, store and approvals
 * (so `--allow` bounds what it may do too), the default subagent limits, and no named agents: exec
 * loads nothing from the repository that could choose its tools, model or instructions.
 */
import type { TokenCounter } from '../core/accounting/tokenizer';
import type { SubagentSetup } from '../core/agent/build/agentBuild';
import type { SubagentProgress } from '../core/agent/events';
import type { SubagentLimits } from '../core/agent/subagents/delegateTool';
import type { SessionStore } from '../core/ports/sessionStore';
import { ContextSession } from '../core/context/contextSession';
import type { ContextSettings } from '../core/settings';
import { settingDefault } from '../core/settingsSchema';

/** The limits a user who changed no setting has in the extension. */
export function defaultSubagentLimits(settings: ContextSettings): SubagentLimits {
  return {
    maxRequests: settingDefault('subagents.maxRequests'),
    maxTokens: settingDefault('subagents.maxTokens'),
    maxConcurrent: settingDefault('subagents.maxConcurrent'),
    allowNested: settingDefault('subagents.allowNested'),
    maxPerTurn: settingDefault('subagents.maxPerTurn'),
    maxTokensPerTurn: settingDefault('subagents.maxTokensPerTurn'),
    maxReportLines: settings.truncation.maxLines,
    maxReportBytes: settingDefault('subagents.maxReportBytes'),
  };
}

export interface ExecSubagentOptions {
  store: SessionStore;
  /** The run's model: the only one a subagent may use. */
  model: string;
  maxOutputTokens: number;
  contextWindow: number;
  counter: TokenCounter;
  settings: ContextSettings;
}

/** The run's subagents: the run's model and window, the default limits, no named agents. */
export function execSubagents(options: ExecSubagentOptions): SubagentSetup {
  const { store, counter, settings } = options;
  return {
    limits: () => defaultSubagentLimits(settings),
    agents: async () => [],
    modelAllowed: (model) => model === options.model,
    openContext: (sessionId) => ContextSession.open({ store, sessionId, settings, counter, contextWindow: options.contextWindow, maxOutputTokens: options.maxOutputTokens }),
  };
}

/** A subagent's progress as one `--json` line: the parent's delegate call, the subagent's session, what happened. */
export function subagentJsonLine(progress: SubagentProgress): Record<string, unknown> {
  const head = { type: 'subagent', kind: progress.kind, call: progress.callId, session: progress.sessionId, ...(progress.agent ? { agent: progress.agent } : {}) };
  switch (progress.kind) {
    case 'started':
      return { ...head, task: progress.task };
    case 'request':
      return { ...head, request: progress.requestIndex, usedTokens: progress.usedTokens, effectiveWindow: progress.effectiveWindow, percent: progress.percent };
    case 'usage':
      return { ...head, request: progress.record.requestIndex, estimatedInput: progress.record.estimatedInputTokens, input: progress.record.reportedInputTokens, output: progress.record.reportedOutputTokens };
    case 'compaction':
      return { ...head, event: progress.event };
    case 'tool_call':
      return { ...head, id: progress.toolCallId, name: progress.toolName };
    case 'ended':
      return { ...head, stopReason: progress.stopReason, requests: progress.requests, tokens: progress.tokens, ...(progress.error ? { error: progress.error } : {}) };
  }
}

/** A subagent's progress for plain output (stderr), or nothing for the steps too small to show. */
export function subagentTextLine(progress: SubagentProgress): string | undefined {
  const who = `[${progress.agent ?? 'general'} subagent`;
  switch (progress.kind) {
    case 'started':
      return `\n${who} started: ${progress.task.split('\n')[0].slice(0, 200)}]\n`;
    case 'tool_call':
      return `${who} → ${progress.toolName}]\n`;
    case 'compaction':
      return `${who} compacted its context]\n`;
    case 'ended':
      return `${who} ended (${progress.stopReason}): ${progress.requests} request${progress.requests === 1 ? '' : 's'}, ${progress.tokens} tokens${progress.error ? `; ${progress.error}` : ''}]\n`;
    default:
      return undefined;
  }
}
