import { EMPTY_FIXED } from '../accounting/usageBasis';
import { SessionCallIds } from '../history/uniqueCallIds';
import type { Message, ReasoningBlock, ToolCall } from '../model/message';
import type { ContextSession } from '../context/contextSession';
import { ProviderError } from '../providers/errors';
import { serverPromptTokens } from '../providers/classifyError';
import { readTextToolCalls } from './textToolCalls';
import { defaultSleep, resendDelay, withRetry } from '../providers/http/retry';
import type { ProviderRequest, ReportedUsage, StopReason } from '../providers/types';
import type { ImageSource } from '../images/imageMessages';
import type { AgentEvent, AgentListener, TurnStopReason } from './events';
import { STOP_NOTICES } from './stopNotices';
import type { AgentOptions, PreparedPrompt, PromptSource } from './agentOptions';
import { holdText, loopStopText } from '../context/autoCompaction';
import { endTurnThroughStopHooks } from './stopHookTurns';
import { keptText, type StreamedResponse } from './streamedResponse';
import type { TurnImages } from './turnImages';

export { STOP_NOTICES };
export type { AgentOptions, PreparedPrompt, PromptSource };


class CancelledError extends Error {}


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
    const before = options.gate?.beforeCompaction?.bind(options.gate);
    this.unsubscribe = options.contextSession.onCompaction((event) => this.emit({ type: 'compaction', event }), before && ((compaction, signal) => before(compaction, (e) => this.emit(e), signal)));
  }

  get contextSession(): ContextSession {
    return this.options.contextSession;
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  /** How this agent's model takes images (the chat's chips cost them for it). */
  get images(): TurnImages | undefined { return this.options.images; }

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

  /** Builds the prompt once before a new session's first request, so what the views say the next request
   * carries counts its system prompt and tools (after a request, the session knows them from it). */
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
    const refused = this.options.images?.refusal(attachments);
    if (refused) return this.refuse(refused, true);
    return this.runTurn(external, async (signal, report) => {
      const gate = await this.options.gate?.beforeTurn(text, report, signal);
      if (gate?.blocked !== undefined) return { blocked: gate.blocked };
      return { userId: (await this.contextSession.appendUser(text, attachments, made.source, made.mode)).id };
    });
  }

  /**
   * Goes on with the last turn without a new message: after the user compacted a context held at
   * the hard block, or chose to send it anyway (`overBlock`: its next request is sent uncompacted).
   */
  async continueTurn(how: { overBlock?: boolean } = {}, external?: AbortSignal): Promise<TurnStopReason> {
    const messages = this.contextSession.messages;
    let last: Message | undefined;
    for (let i = messages.length - 1; i >= 0 && !last; i--) if (messages[i].agentVisible && messages[i].role === 'user' && messages[i].kind === 'user') last = messages[i];
    if (!last) throw new Error('There is no turn to go on with: send a message.');
    const userId = last.id;
    return this.runTurn(external, async () => ({ userId }), how.overBlock);
  }

  private async runTurn(external: AbortSignal | undefined, start: (signal: AbortSignal, report: AgentListener) => Promise<{ userId?: string; blocked?: string }>, overBlock = false): Promise<TurnStopReason> {
    if (this.running) throw new Error('the agent is already working on a request');
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    external?.addEventListener('abort', onAbort, { once: true });
    this.running = controller;
    try {
      const report = (event: AgentEvent) => this.emit(event);
      const started = await start(controller.signal, report);
      if (started.blocked !== undefined) {
        this.emit({ type: 'error', message: started.blocked, kind: 'blocked_by_hook' });
        this.emit({ type: 'turn_end', stopReason: 'blocked' });
        return 'blocked';
      }
      this.emit({ type: 'turn_start', userMessageId: started.userId! });
      const mode = this.contextSession.messages.find((m) => m.id === started.userId)?.meta?.mode;
      const reason = await endTurnThroughStopHooks(this.options.gate, await this.loop(controller.signal, overBlock), report, {
        messages: () => this.contextSession.messages,
        // A Stop hook's feedback goes on in the turn's own mode: a planning turn stays read-only.
        goOn: async (next, source) => {
          await this.contextSession.appendUser(next, [], source, mode);
          return this.loop(controller.signal, false);
        },
      });
      this.emit({ type: 'turn_end', stopReason: reason });
      return reason;
    } finally {
      external?.removeEventListener('abort', onAbort);
      this.running = undefined;
    }
  }

  private async loop(signal: AbortSignal, overBlock: boolean): Promise<TurnStopReason> {
    const maxSteps = this.options.maxSteps ?? 200;
    const maxPauses = this.options.maxPauses ?? 5;
    let pauses = 0;
    for (let step = 0; step < maxSteps; step++) {
      try {
        const outcome = await this.step(signal, overBlock && step === 0);
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

  private async step(signal: AbortSignal, overBlock: boolean): Promise<TurnStopReason | 'tool_use' | 'pause_turn'> {
    const prompts = this.options.prompt;
    let request = await this.contextSession.nextRequest((room) => prompts.prepare({ effectiveWindow: room.effectiveWindow, percentUsed: room.percentUsed }), signal, { overBlock });
    if (signal.aborted) throw new CancelledError('cancelled');
    const stopped = request.compaction?.autoStopped;
    if (stopped && request.status !== 'blocked') this.emit({ type: 'notice', message: loopStopText(stopped) });
    if (request.hold) {
      // Never compacted silently: the user decides (compact now, or send anyway).
      this.emit({ type: 'notice', message: holdText(request.hold, request.plan.budget.percent), action: 'compact' });
      return 'held';
    }
    if (request.status === 'blocked') {
      this.emit({
        type: 'error',
        kind: 'blocked',
        message: `The context is still ${Math.round(request.plan.budget.percent * 100)}% full after compaction; nothing more can be removed safely. Start a new session or unpin items.`,
      });
      return 'blocked';
    }
    const refused = await this.options.images?.prepare(request.plan.messages);
    if (refused) return this.refuse(refused);
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
        if (!this.contextSession.settings.autoCompact) {
          this.emit({ type: 'notice', message: STOP_NOTICES.refusedAutoOff(error.message), action: 'compact' });
          return 'held';
        }
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
    const partial = keptText(this.partialText, overLimit);
    this.partialText = '';
    if (!partial.trim()) return;
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
    const images: ImageSource[] = [];
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
      images.push(...(output.images ?? []));
    }
    if (images.length && this.options.images) await this.contextSession.append(...this.options.images.toolImages(images));
    return 'tool_use';
  }

  /** A turn the model cannot be sent (images to a model that takes none): said, never sent; `ended`: before the turn started. */
  private refuse(message: string, ended = false): 'blocked' {
    this.emit({ type: 'error', kind: 'blocked', message });
    if (ended) this.emit({ type: 'turn_end', stopReason: 'blocked' });
    return 'blocked';
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
