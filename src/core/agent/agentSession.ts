import { EMPTY_FIXED, type FixedComponents } from '../accounting/usageBasis';
import { SessionCallIds } from '../history/uniqueCallIds';
import type { Message, ReasoningBlock, ToolCall } from '../model/message';
import type { ToolDefinition } from '../model/tool';
import type { PromptSections } from '../prompt/promptSections';
import type { ContextSession } from '../context/contextSession';
import { ProviderError } from '../providers/errors';
import { serverPromptTokens } from '../providers/classifyError';
import { readTextToolCalls } from './textToolCalls';
import { defaultSleep, resendDelay, withRetry, type RetryOptions } from '../providers/http/retry';
import type { ChatProvider, ProviderRequest, ReasoningRequest, ReportedUsage, StopReason } from '../providers/types';
import type { AgentEvent, AgentListener, TurnStopReason } from './events';
import type { ToolRunner } from './toolRunner';
import type { TurnGate } from './turnGate';

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
}

interface StreamedResponse {
  text: string;
  calls: ToolCall[];
  reasoning: ReasoningBlock[];
  usage?: ReportedUsage;
  stopReason: StopReason;
}

/** What the chat says when the model's answer did not end normally. */
export const STOP_NOTICES = {
  refusal: 'The model declined to answer this request (it stopped with a refusal). Rephrase the request or ask something else.',
  cutToolCall: 'The answer was cut at the output limit while the model was writing a tool call, so the call was not run. Continue to let the model carry on.',
  cutText: 'The answer was cut at the output limit. Continue to let the model carry on.',
  tooManyPauses: (n: number) => `The provider paused this turn ${n} times; send a message to continue.`,
  textToolCalls: (names: readonly string[]) => `The model wrote its tool call${names.length === 1 ? '' : 's'} (${names.join(', ')}) as text rather than as a structured call (small local models do this); Tally read ${names.length === 1 ? 'it' : 'them'} as ${names.length === 1 ? 'a call' : 'calls'}.`,
  toolCallAsText: (sample: string) => `The model wrote a tool call as text (${JSON.stringify(sample)}) instead of calling the tool, so nothing ran. The model or its server does not turn its tool calls into structured calls: try a model with tool support, or ask again.`,
} as const;

class CancelledError extends Error {}

/** What is kept of a reply stopped at one of the reply limits. */
const KEPT_OVER_LIMIT_CHARS = 8_000;

/**
 * The agent loop: build the prompt, measure, compact when needed, send and stream, run the
 * tools the model asked for, record everything, and repeat until the model stops calling tools.
 * Cancellation at any point leaves a valid history.
 */
export class AgentSession {
  private readonly listeners = new Set<AgentListener>();
  private running?: AbortController;
  /** Text streamed so far by the response in flight (kept if the response fails for good). */
  private partialText = '';
  private readonly callIds = new SessionCallIds();
  private readonly unsubscribe: () => void;

  constructor(private readonly options: AgentOptions) {
    this.unsubscribe = options.contextSession.onCompaction((event) => {
      if (event.type === 'start' && !event.dryRun) options.gate?.compactionStarting?.(event.trigger, (e) => this.emit(e));
      this.emit({ type: 'compaction', event });
    });
  }

  get contextSession(): ContextSession {
    return this.options.contextSession;
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  on(listener: AgentListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    this.cancel();
    this.unsubscribe();
    this.listeners.clear();
  }

  private emit(event: AgentEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // UI failures never break the loop.
      }
    }
  }

  /**
   * Builds the prompt once before a new session's first request, so what the views say the next
   * request carries (the meter, the composer's cost line) counts its system prompt and tools.
   * A session that sent a request already knows its prompt's part from that request.
   */
  async preparePromptFigures(): Promise<void> {
    const context = this.options.contextSession;
    if (this.running || context.nextRequestIndex > 0) return;
    const room = context.measure(EMPTY_FIXED);
    const prepared = await this.options.prompt.prepare({ effectiveWindow: room.effectiveWindow, percentUsed: room.percent });
    if (!this.running) context.notePromptFixed(prepared.fixed, prepared.sections);
  }

  /** Stops the current turn; pending tool calls get "aborted" outputs. */
  cancel(): void {
    this.running?.abort();
  }

  /**
   * Runs one user turn to completion. Only one turn runs at a time. `attachments`: attachment
   * messages the user put with this message, recorded right before it; `source`: the command
   * the text came from, and `mode` (plan mode), recorded on the message.
   */
  async send(text: string, external?: AbortSignal, attachments: readonly Message[] = [], made: { source?: string; mode?: 'plan' } = {}): Promise<TurnStopReason> {
    if (this.running) throw new Error('the agent is already working on a request');
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    external?.addEventListener('abort', onAbort, { once: true });
    this.running = controller;
    try {
      const report = (event: AgentEvent) => this.emit(event);
      const gate = await this.options.gate?.beforeTurn(text, report, controller.signal);
      if (gate?.blocked !== undefined) {
        this.emit({ type: 'error', message: gate.blocked, kind: 'blocked_by_hook' });
        this.emit({ type: 'turn_end', stopReason: 'blocked' });
        return 'blocked';
      }
      const user = await this.contextSession.appendUser(text, attachments, made.source, made.mode);
      this.emit({ type: 'turn_start', userMessageId: user.id });
      const reason = await this.loop(controller.signal);
      await this.options.gate?.afterTurn(reason, report);
      this.emit({ type: 'turn_end', stopReason: reason });
      return reason;
    } finally {
      external?.removeEventListener('abort', onAbort);
      this.running = undefined;
    }
  }

  private async loop(signal: AbortSignal): Promise<TurnStopReason> {
    const maxSteps = this.options.maxSteps ?? 200;
    const maxPauses = this.options.maxPauses ?? 5;
    let pauses = 0;
    for (let step = 0; step < maxSteps; step++) {
      try {
        const outcome = await this.step(signal);
        if (outcome === 'pause_turn') {
          // The paused answer is recorded; the next request sends it back and the model goes on.
          if (++pauses > maxPauses) {
            this.emit({ type: 'notice', message: STOP_NOTICES.tooManyPauses(maxPauses) });
            return 'end_turn';
          }
          continue;
        }
        if (outcome !== 'tool_use') return outcome;
      } catch (error) {
        if (error instanceof CancelledError || signal.aborted) {
          await this.contextSession.abortOpenCalls('cancelled by the user');
          return 'cancelled';
        }
        const kind = error instanceof ProviderError ? error.kind : 'internal';
        const message = error instanceof Error ? error.message : String(error);
        await this.keepPartialText(message, error instanceof ProviderError && error.kind === 'reply_limit');
        await this.contextSession.abortOpenCalls(`the request failed: ${message}`);
        this.emit({ type: 'error', message, kind });
        return 'error';
      }
    }
    this.emit({ type: 'notice', message: `Stopped after ${maxSteps} requests in one turn; send a message to continue.` });
    return 'max_steps';
  }

  private async step(signal: AbortSignal): Promise<TurnStopReason | 'tool_use' | 'pause_turn'> {
    const prompts = this.options.prompt;
    let request = await this.contextSession.nextRequest((room) => prompts.prepare({ effectiveWindow: room.effectiveWindow, percentUsed: room.percentUsed }), signal);
    if (signal.aborted) throw new CancelledError('cancelled');
    if (request.status === 'blocked') {
      this.emit({
        type: 'error',
        kind: 'blocked',
        message: `The context is still ${Math.round(request.plan.budget.percent * 100)}% full after compaction; nothing more can be removed safely. Start a new session or unpin items.`,
      });
      return 'blocked';
    }
    for (;;) {
      const { plan } = request;
      this.emit({ type: 'request_start', requestIndex: request.requestIndex, usedTokens: plan.budget.used, effectiveWindow: plan.budget.effectiveWindow, percent: plan.budget.percent });
      let response: StreamedResponse;
      try {
        response = await this.streamWithRetry(this.buildRequest(plan.messages, request.prompt), signal);
      } catch (error) {
        if (!(error instanceof ProviderError && error.kind === 'context_too_long')) throw error;
        // The request was sent and refused: it is recorded with the server's own count when the
        // message gives one (the inspector lists it, the figures calibrate on it).
        const counted = serverPromptTokens(error.message);
        await this.contextSession.recordResponse(request, { model: this.options.model, reported: counted ? { inputTokens: counted } : undefined });
        if (!request.recovered) {
          // Compact and retry once, unless compacting removed nothing: the same body would be refused again.
          const sent = JSON.stringify(this.buildRequest(plan.messages, request.prompt));
          const recovered = await this.contextSession.recoverFromOverflow(request, signal);
          if (JSON.stringify(this.buildRequest(recovered.plan.messages, recovered.prompt)) !== sent) {
            request = recovered;
            continue;
          }
        }
        const figures = counted ? ` (it counted ${counted.toLocaleString('en-US')} tokens; Tally estimated ${plan.budget.estimatedTotal.toLocaleString('en-US')})` : '';
        this.emit({
          type: 'error',
          kind: 'blocked',
          message: `The model's server refused the request as too long for its context window${figures}, and compacting left nothing more to remove, so it was not sent again. Start a new session, unpin items, or choose a model with a larger window. The server said: ${error.message}`,
        });
        return 'blocked';
      }
      const record = await this.contextSession.recordResponse(request, { model: this.options.model, reported: response.usage });
      this.emit({ type: 'usage', record });
      return this.finishResponse(response, signal);
    }
  }

  /** `messages` are the planned ones: the conversation with the dynamic part already in place. */
  private buildRequest(messages: Message[], prompt: PreparedPrompt): ProviderRequest {
    return {
      model: this.options.model,
      system: prompt.system,
      messages,
      tools: prompt.tools,
      maxOutputTokens: this.options.maxOutputTokens,
      ...(this.options.reasoning ? { reasoning: this.options.reasoning } : {}),
    };
  }

  private async streamWithRetry(request: ProviderRequest, signal: AbortSignal): Promise<StreamedResponse> {
    return withRetry(() => this.streamOnce(request, signal), {
      ...this.options.retry,
      maxAttempts: (this.options.streamRetries ?? 2) + 1,
      delay: resendDelay,
      sleep: this.options.sleep ?? defaultSleep,
      signal,
      onRetry: ({ attempt, delayMs, error }) => this.emit({ type: 'retry', attempt, delayMs, reason: error.message }),
    });
  }

  private async streamOnce(request: ProviderRequest, signal: AbortSignal): Promise<StreamedResponse> {
    this.partialText = '';
    let text = '';
    const calls: ToolCall[] = [];
    const reasoning: ReasoningBlock[] = [];
    let usage: ReportedUsage | undefined;
    let stopReason: StopReason = 'end_turn';
    try {
      for await (const event of this.options.provider.stream(request, signal)) {
        switch (event.type) {
          case 'text':
            text += event.text;
            this.partialText = text;
            this.emit({ type: 'text_delta', text: event.text });
            break;
          case 'reasoning_delta':
            this.emit({ type: 'reasoning_delta', text: event.text });
            break;
          case 'reasoning':
            reasoning.push(event.block);
            break;
          case 'tool_call':
            calls.push(this.callIds.claim(event.call, this.contextSession.messages));
            break;
          case 'usage':
            usage = { ...usage, ...event.usage };
            break;
          case 'retry':
            this.emit({ type: 'retry', attempt: event.attempt, delayMs: event.delayMs, reason: event.reason });
            break;
          case 'done':
            stopReason = event.stopReason;
            break;
          default:
            break;
        }
      }
    } catch (error) {
      if (signal.aborted) {
        // Keep what the user already saw; calls that were cut are not recorded (no orphans).
        if (text.trim()) await this.recordAssistant(`${text}\n[cancelled]`, []);
        throw new CancelledError('cancelled');
      }
      throw error;
    }
    this.partialText = '';
    if (calls.length === 0 && stopReason !== 'max_tokens' && request.tools?.length) {
      const written = readTextToolCalls(text, new Set(request.tools.map((t) => t.name)));
      if (written.kind === 'calls') {
        for (const call of written.calls) calls.push(this.callIds.claim({ id: '', ...call }, this.contextSession.messages));
        this.emit({ type: 'notice', message: STOP_NOTICES.textToolCalls(written.calls.map((c) => c.name)) });
        return { text: '', calls, reasoning, usage, stopReason: 'tool_use' };
      }
      if (written.kind === 'written') this.emit({ type: 'notice', message: STOP_NOTICES.toolCallAsText(written.sample) });
    }
    return { text, calls, reasoning, usage, stopReason };
  }

  /**
   * Text the user already saw from a response that then failed is kept, marked as cut off. A reply
   * stopped at a limit keeps only its start: the rest would fill the next request.
   */
  private async keepPartialText(reason: string, overLimit: boolean): Promise<void> {
    let partial = this.partialText;
    this.partialText = '';
    if (!partial.trim()) return;
    if (overLimit && partial.length > KEPT_OVER_LIMIT_CHARS) partial = `${partial.slice(0, KEPT_OVER_LIMIT_CHARS)}\n[… ${(partial.length - KEPT_OVER_LIMIT_CHARS).toLocaleString('en-US')} more characters not kept]`;
    try {
      await this.recordAssistant(`${partial}\n[The response was cut off: ${reason}]`, []);
    } catch {
      // The error itself is reported next; a failed save of the fragment must not hide it.
    }
  }

  private async recordAssistant(text: string, calls: ToolCall[], reasoning: ReasoningBlock[] = []): Promise<Message> {
    const message = await this.contextSession.appendAssistant(text, calls, reasoning);
    this.emit({ type: 'assistant_message', message });
    return message;
  }

  private async finishResponse(response: StreamedResponse, signal: AbortSignal): Promise<TurnStopReason | 'tool_use' | 'pause_turn'> {
    if (response.stopReason === 'max_tokens') {
      // A call cut at the output limit has arguments that stop midway: it is never run.
      await this.recordAssistant(response.text, [], response.reasoning);
      this.emit({ type: 'notice', message: response.calls.length ? STOP_NOTICES.cutToolCall : STOP_NOTICES.cutText, action: 'continue' });
      return 'max_tokens';
    }
    await this.recordAssistant(response.text, response.calls, response.reasoning);
    if (response.stopReason === 'refusal') {
      await this.contextSession.abortOpenCalls('the model declined to answer');
      this.emit({ type: 'notice', message: STOP_NOTICES.refusal });
      return 'refusal';
    }
    if (response.stopReason === 'pause_turn' && response.calls.length === 0) return 'pause_turn';
    if (response.calls.length === 0) return 'end_turn';
    // Calls of a concurrent tool (subagents) start together; results are still recorded in call order.
    const started = new Map(response.calls.filter((c) => this.options.tools.concurrent?.(c.name)).map((c) => [c.id, this.runTool(c, signal)]));
    for (const call of response.calls) {
      if (signal.aborted) throw new CancelledError('cancelled');
      const output = await (started.get(call.id) ?? this.runTool(call, signal));
      if (signal.aborted && output.cancelled) {
        const message = await this.contextSession.recordToolResult(call, output.output, { isError: true });
        this.emit({ type: 'tool_result', callId: call.id, message });
        throw new CancelledError('cancelled');
      }
      const message = await this.contextSession.recordToolResult(call, output.output, { isError: output.isError, denied: output.denied });
      this.emit({ type: 'tool_result', callId: call.id, message });
    }
    return 'tool_use';
  }

  private runTool(call: ToolCall, signal: AbortSignal) {
    this.emit({ type: 'tool_call', call });
    return this.options.tools.run(call, {
      signal,
      onApprovalNeeded: (request) => this.emit({ type: 'approval_needed', request }),
      onApprovalResolved: (decision) => this.emit({ type: 'approval_resolved', callId: call.id, decision }),
      onEvent: (event) => this.emit(event),
    });
  }
}
