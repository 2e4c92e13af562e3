/**
 * The benches' long, compacted session: `turns` turns, each a user message, an assistant step with
 * a tool call and a log output of about 10 KB as its result, run through the real chain
 * (seedByRealChain.ts) in a 200,000-token window, so the window compacts it as it fills, with
 * Tally's default strategies: the compaction records, snapshots, archived results and segment
 * facts are the ones a session that ran that long leaves. Flushed every 20 turns.
 */
import type { Message } from '../../src/core/model/message';
import { call, logOutput, msg, prng } from '../../test/support/syntheticSession';
import { seedByRealChain } from './seedByRealChain';

export const LONG_SESSION_WINDOW = 200_000;

export function longSessionMessages(turns: number, startAt: number): Message[] {
  const random = prng(turns);
  const out: Message[] = [];
  let at = startAt;
  for (let t = 0; t < turns; t++) {
    const c = call('run_command', { command: `npm test -- --grep case${t}` });
    out.push(
      msg({ role: 'user', content: `Turn ${t}: keep going.`, createdAt: at++ }),
      msg({ role: 'assistant', content: `Step ${t}.`, toolCalls: [c], createdAt: at++ }),
      msg({ role: 'tool', content: logOutput(random, 120, random() < 0.2), toolCallId: c.id, toolName: 'run_command', createdAt: at++ }),
    );
  }
  return out;
}

export async function seedLongSession(storageDir: string, turns: number): Promise<string> {
  const seeded = await seedByRealChain(storageDir, {
    title: `Bench session of ${turns} turns`,
    messages: longSessionMessages(turns, Date.now() - turns * 3 - 60_000),
    contextWindow: LONG_SESSION_WINDOW,
    flushEvery: 60,
  });
  return seeded.sessionId;
}
