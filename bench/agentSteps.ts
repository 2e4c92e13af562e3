import { assistantMessage, toolResultMessage, userMessage } from '../src/core/model/factories';
import type { Message } from '../src/core/model/message';
import type { SessionStore } from '../src/core/ports/sessionStore';

/** A long agent session for the refresh benches: a task, then steps of a command and its short output. */
export const visible = (m: Message, at: number): Message => ({ ...m, createdAt: at, userVisible: true, agentVisible: true });

export function stepCall(i: number) {
  return { id: `c${i}`, name: 'run_command', arguments: JSON.stringify({ command: `npm test -- --grep case-${i}` }) };
}

/** One agent step as stored: the model's call and its result. */
export function agentStep(i: number, at: number): Message[] {
  return [visible(assistantMessage(`Step ${i}: running the **tests** for case ${i}.`, [stepCall(i)], { id: `a${i}` }), at), visible(toolResultMessage(stepCall(i), `PASS case-${i}\n`.repeat(8), { id: `t${i}` }), at + 1)];
}

/**
 * Fills `sessionId` with about `messages` messages (a task, then steps), in batches of 100 steps;
 * `onStep` records what else a step left (usage, offloaded results). Returns the next step's number.
 */
export async function fillAgentSession(store: SessionStore, sessionId: string, messages: number, onStep: (i: number, at: number) => Promise<void>): Promise<number> {
  let at = 1;
  await store.putMessages(sessionId, [visible(userMessage('Make the whole test suite pass.', { id: 'u0' }), at++)]);
  let i = 0;
  while (i * 2 + 1 < messages) {
    const batch: Message[] = [];
    for (let k = 0; k < 100 && i * 2 + 1 < messages; k++, i++) {
      batch.push(...agentStep(i, at));
      await onStep(i, at);
      at += 2;
    }
    await store.putMessages(sessionId, batch);
  }
  await store.flush();
  return i;
}
