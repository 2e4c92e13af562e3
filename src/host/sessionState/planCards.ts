import type { Message } from '../../core/model/message';
import type { ChatPlanView } from '../../protocol/chat';

/** The plans the chat shows on the messages that proposed them, and the mode the last turn ran in. */
export interface PlanFold {
  /** By the id of the assistant message whose text is the plan. */
  cards: Map<string, ChatPlanView>;
  /** The last turn the user started ran in plan mode. */
  lastTurnPlan: boolean;
}

/**
 * Folds the plans from the messages held: a turn run in plan mode (its user message says so)
 * proposes the text of its last answer without tool calls; the user's records decide it (the latest
 * edit, then an approval or a discard: plan items naming it). Only the plan of the latest turn can
 * still be acted on; an older one nobody decided was passed over by the messages after it. While a
 * turn runs (`running`), its plan is not final and gets no card yet.
 */
export function foldPlans(messages: readonly Message[], running: boolean): PlanFold {
  const proposed: Array<{ message: Message; latest: boolean }> = [];
  const decided = new Map<string, Message>();
  let planTurn = false;
  let candidate: Message | undefined;
  const close = (latest: boolean) => {
    if (candidate) proposed.push({ message: candidate, latest });
    candidate = undefined;
  };
  for (const m of messages) {
    if (m.role === 'user' && m.kind === 'user' && m.userVisible) {
      close(false);
      planTurn = m.meta?.mode === 'plan';
    } else if (m.kind === 'plan' && m.meta?.planOf !== undefined) {
      decided.set(m.meta.planOf, m);
    } else if (planTurn && m.role === 'assistant' && m.userVisible && !m.toolCalls?.length && m.content.trim()) {
      candidate = m;
    }
  }
  if (!running) close(true);
  const cards = new Map<string, ChatPlanView>();
  for (const { message, latest } of proposed) {
    const decision = decided.get(message.id);
    const text = decision?.content ?? message.content;
    const edited = text !== message.content ? { edited: true } : {};
    const status: ChatPlanView['status'] =
      decision?.meta?.plan === 'approved' ? 'approved' : decision?.meta?.plan === 'discarded' ? 'discarded' : latest ? 'proposed' : 'passed';
    cards.set(message.id, { status, text, ...edited });
  }
  return { cards, lastTurnPlan: planTurn };
}

/** Whether a write may change the plans: a user message, a plan decision, or an answer (the running turn's). */
export function touchesPlans(messages: readonly Message[]): boolean {
  return messages.some((m) => (m.role === 'user' && m.kind === 'user') || (m.kind === 'plan' && m.meta?.planOf !== undefined));
}

/**
 * The session's plans as the chat shows them, and which mode the next message runs in: the mode
 * the last turn ran in, until the user switches it (a message sent settles it again).
 */
export class SessionPlans {
  private cards = new Map<string, ChatPlanView>();
  private lastTurnPlan = false;
  private switched?: boolean;

  /** Folds the plans again; returns the ids of the messages whose card changed. */
  fold(messages: readonly Message[], running: boolean): string[] {
    const next = foldPlans(messages, running);
    const changed = [...new Set([...this.cards.keys(), ...next.cards.keys()])].filter((id) => JSON.stringify(this.cards.get(id)) !== JSON.stringify(next.cards.get(id)));
    this.cards = next.cards;
    this.lastTurnPlan = next.lastTurnPlan;
    return changed;
  }

  /** A message was sent: its own mode is the mode from now on. */
  sent(): void {
    this.switched = undefined;
  }

  /** The user switched plan mode; returns whether that changed it. */
  switchTo(on: boolean): boolean {
    const before = this.planMode;
    this.switched = on;
    return before !== on;
  }

  /** Whether the next message runs in plan mode. */
  get planMode(): boolean {
    return this.switched ?? this.lastTurnPlan;
  }

  /** Whether the latest turn the user started (the one running, or the last) runs in plan mode. */
  get turnInPlanMode(): boolean {
    return this.lastTurnPlan;
  }

  card(messageId: string): ChatPlanView | undefined {
    return this.cards.get(messageId);
  }

  /** The plan the user may still act on, with the message that proposed it; undefined when `messageId` is not that plan. */
  open(messageId: string): ChatPlanView | undefined {
    const card = this.cards.get(messageId);
    return card?.status === 'proposed' ? card : undefined;
  }
}
