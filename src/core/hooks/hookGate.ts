import type { AgentListener, TurnStopReason } from '../agent/events';
import type { TurnGate } from '../agent/turnGate';
import type { CompactionTrigger } from '../model/records';
import type { HookContext } from './hookContext';
import { hookLabel, type Hooks } from './hooks';

function notify(report: AgentListener, notices: readonly string[]): void {
  for (const message of notices) report({ type: 'notice', message });
}

/**
 * SessionStart, UserPromptSubmit, Stop and PreCompact hooks around an agent's turns. SessionStart
 * runs before the first prompt this agent sends (`source`: "resume" when the session already
 * had messages); what it adds stays for the session.
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
    async afterTurn(reason: TurnStopReason, report) {
      const stop = await hooks.fire('Stop', { stop_hook_active: false, stop_reason: reason });
      notify(report, stop.notices);
      if (stop.decision === 'block' && stop.reason) report({ type: 'notice', message: `Hook ${hookLabel(stop.decidedBy ?? '')} asked the agent to go on: ${stop.reason}` });
    },
    compactionStarting(trigger: CompactionTrigger, report) {
      void hooks.fire('PreCompact', { trigger: trigger === 'manual' ? 'manual' : 'auto', tally_trigger: trigger, custom_instructions: '' }).then((pre) => notify(report, pre.notices));
    },
  };
}
