import type { FixedComponents } from '../accounting/usageBasis';
import type { ToolDefinition } from '../model/tool';
import type { PromptSections } from '../prompt/promptSections';
import type { ContextSession } from '../context/contextSession';
import type { RetryOptions } from '../providers/http/retry';
import type { ChatProvider, ReasoningRequest } from '../providers/types';
import type { ToolRunner } from './toolRunner';
import type { TurnGate } from './turnGate';
import type { TurnImages } from './turnImages';

/**
 * What the prompt side contributes to one request: system prompt blocks (the stable prefix), the
 * offered tools, and every section with its text and tokens (the dynamic part among them, which
 * the session places in the conversation).
 */
export interface PreparedPrompt {
  system: Array<{ text: string; cacheBreakpoint?: boolean }>;
  tools: ToolDefinition[];
  fixed: FixedComponents;
  sections: PromptSections;
}

export interface PromptSource {
  prepare(args: { effectiveWindow: number; percentUsed: number }): Promise<PreparedPrompt>;
}

export interface AgentOptions {
  contextSession: ContextSession;
  provider: ChatProvider;
  model: string;
  maxOutputTokens: number;
  prompt: PromptSource;
  tools: ToolRunner;
  /** The thinking each request asks for (the reserve for it is part of `maxOutputTokens`). */
  reasoning?: ReasoningRequest;
  /** Requests in one turn before the loop stops and asks the user to continue. */
  maxSteps?: number;
  /** Times one turn goes on after the provider paused it (a long server-side tool run), default 5. */
  maxPauses?: number;
  /** Re-sends of a request whose stream dropped before it completed (default 2). */
  streamRetries?: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Backoff between re-sends; the same policy the providers use before any output. */
  retry?: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs' | 'random'>;
  /** What stands around each turn: the user's prompt, session start, stop and compaction hooks. */
  gate?: TurnGate;
  /** Whether the model takes images, and where their bytes are read back from. */
  images?: TurnImages;
}
