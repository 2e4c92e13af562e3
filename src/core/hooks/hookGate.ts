import type { AgentListener } from '../agent/events';
import type { StoppedTurn, TurnGate } from '../agent/turnGate';
import type { CompactionTrigger } from '../model/records';
import type { HookContext } from './hookContext';
import { hookLabel, type Hooks } from './hooks';

function notify(report: AgentListener, notices: readonly string[]): void {
  for (const message of notices) report({ type: 'notice', message });
}

/**
 * SessionStart, UserPromptSubmit, Stop and PreCompact hooks around an agent's turns. SessionStart
 * runs before the first prompt this agent sends (`source`: "resume" when the session already
 * had messages); what it adds stays for the session. A Stop hook that blocks makes the turn go on
 * with its reason as the next message; PreCompact hooks are awaited before a compaction, and the
 * instructions or context they answer go to the summary request.
 */
export function hookGate(hooks: Hooks, context: HookContext, resumed: () => boolean): TurnGate {
  let started = false;
  return {
    async beforeTurn(text, report, signal) {
      context.newTurn();
      if (!started) {
        started = true;
        const start = await hooks.fire('SessionStart', { source: resumed() ? 'resume' : 'startup' }, undefined, signal);
        notify(report, start.notices);
        context.add('SessionStart', start.context);
      }
      const submit = await hooks.fire('UserPromptSubmit', { prompt: text }, undefined, signal);
      notify(report, submit.notices);
      if (submit.decision === 'block') return { blocked: `A hook (${hookLabel(submit.decidedBy ?? '')}) blocked this prompt: ${submit.reason ?? 'no reason given'}` };
      context.add('UserPromptSubmit', submit.context);
      return {};
    },
    async afterTurn(turn: StoppedTurn, report) {
      const stop = await hooks.fire('Stop', { stop_hook_active: turn.continued > 0, stop_reason: turn.reason, ...(turn.lastAssistantText !== undefined ? { last_assistant_message: turn.lastAssistantText } : {}) });
      notify(report, stop.notices);
      // Only an answer that ended normally goes on: a cancelled, failed or blocked turn stays stopped.
      if (stop.decision !== 'block' || stop.halted || turn.reason !== 'end_turn') return {};
      const by = stop.decidedBy ?? 'hook';
      return { continueWith: { text: stopHookMessage(by, stop.reason), source: `Stop hook ${by}` } };
    },
    async beforeCompaction({ trigger, focus }: { trigger: CompactionTrigger; focus?: string }, report, signal) {
      const pre = await hooks.fire('PreCompact', { trigger: trigger === 'manual' ? 'manual' : 'auto', tally_trigger: trigger, custom_instructions: focus ?? '' }, undefined, signal);
      notify(report, pre.notices);
      const said = [...(pre.instructions ?? []), ...pre.context];
      return said.length ? { instructions: said.map((s) => s.text).join('\n\n') } : {};
    },
  };
}

/** The message a Stop hook's "block" puts on the user's side of the conversation: the model reads it and goes on. */
export function stopHookMessage(command: string, reason: string | undefined): string {
  return `Stop hook feedback (${hookLabel(command)}): ${reason ?? 'the hook asked you to go on without giving a reason.'}`;
}
