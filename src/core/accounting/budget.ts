import type { Message } from '../model/message';
import type { ComponentTokens } from '../model/records';
import { UPDATE_TODOS } from '../plan/todoList';
import { DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_OUTPUT, type ContextSettings } from '../settings';

const SUMMARY_KINDS = new Set(['summary', 'tool_summary', 'episode']);
const RESULT_KINDS = new Set(['tool_result', 'tool_result_archived', 'aborted']);

export function emptyComponents(): ComponentTokens {
  return { system: 0, skills: 0, tools: 0, messages: 0, toolResults: 0, summaries: 0, plan: 0 };
}

/**
 * Adds (sign 1) or takes away (sign -1) one message's tokens in the component it belongs to; hidden
 * messages are not sent, so not counted. The plan owns its items and every todo list the agent wrote.
 */
export function addComponentTokens(c: ComponentTokens, m: Message, count: (m: Message) => number, sign: 1 | -1): void {
  if (!m.agentVisible) return;
  const tokens = sign * count(m);
  if (m.kind === 'plan' || (m.kind === 'tool_result' && m.toolName === UPDATE_TODOS)) c.plan = (c.plan ?? 0) + tokens;
  else if (RESULT_KINDS.has(m.kind) || m.role === 'tool') c.toolResults += tokens;
  else if (SUMMARY_KINDS.has(m.kind)) c.summaries += tokens;
  else c.messages += tokens;
}

/**
 * The context budget by component: effective window = context window −
 * output reserve; compaction triggers and the hard block are shares of the effective window.
 */
export class ContextBudget {
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
  /** True when the model's window is unknown and 128K is assumed. */
  readonly windowIsFallback: boolean;
  readonly warning?: string;
  components: ComponentTokens = emptyComponents();
  /** 'reported': the total is the provider's last report plus estimates of what changed since. */
  basis: 'estimate' | 'reported' = 'estimate';
  /** What the local tokenizer alone estimates, for comparison with the reported basis. */
  estimatedTotal = 0;
  private readonly settings: ContextSettings;

  constructor(args: { contextWindow?: number; maxOutputTokens?: number; settings: ContextSettings }) {
    this.settings = args.settings;
    this.windowIsFallback = !(args.contextWindow && args.contextWindow > 0);
    this.contextWindow = this.windowIsFallback ? DEFAULT_CONTEXT_WINDOW : args.contextWindow!;
    const requested = args.maxOutputTokens && args.maxOutputTokens > 0 ? args.maxOutputTokens : DEFAULT_MAX_OUTPUT;
    this.maxOutputTokens = Math.min(requested, Math.floor(this.contextWindow / 2));
    if (this.windowIsFallback) {
      this.warning = `The model's context window is unknown; Tally assumes ${DEFAULT_CONTEXT_WINDOW.toLocaleString('en-US')} tokens. Set tally.contextWindow for exact limits.`;
    }
  }

  setComponents(components: ComponentTokens): this {
    this.components = { ...components };
    return this;
  }

  get effectiveWindow(): number {
    return this.contextWindow - this.maxOutputTokens;
  }

  get used(): number {
    const c = this.components;
    return c.system + c.skills + c.tools + (c.hooks ?? 0) + c.messages + c.toolResults + c.summaries + (c.plan ?? 0);
  }

  get remaining(): number {
    return this.effectiveWindow - this.used;
  }

  get percent(): number {
    return this.used / this.effectiveWindow;
  }

  get compactAtTokens(): number {
    return Math.floor(this.effectiveWindow * this.settings.compactTrigger);
  }

  get blockAtTokens(): number {
    return Math.floor(this.effectiveWindow * this.settings.hardBlock);
  }

  shouldCompact(): boolean {
    return this.used >= this.compactAtTokens;
  }

  isBlocked(): boolean {
    return this.used >= this.blockAtTokens;
  }
}
