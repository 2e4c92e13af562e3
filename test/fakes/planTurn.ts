import type { ScriptItem } from './scriptedServer';

/**
 * A plan-mode turn as a model plays it: it looks around with a read-only tool (list_files), then
 * ends its turn with the plan as a numbered list. Enqueue it before sending the plan-mode message.
 */
export function planTurnScript(plan: string): ScriptItem[] {
  return [
    { type: 'reply', parts: [{ text: '[scripted model] Looking around before I plan.' }, { toolCall: { name: 'list_files', arguments: JSON.stringify({ path: '.', depth: 1 }) } }], usage: null },
    { type: 'reply', parts: [{ text: plan }], usage: null },
  ];
}

/** The turn that carries out an approved plan: one reply saying so (what the request carried is the test's to check). */
export function approvedPlanScript(reply = '[scripted model] Carrying out the approved plan.'): ScriptItem[] {
  return [{ type: 'reply', parts: [{ text: reply }], usage: null }];
}
