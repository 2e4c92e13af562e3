/**
 * Writes a chat session of `turns` turns through the store's own functions, as a long agent
 * session leaves it (each message with its token count, as the session stores it): each turn a user message, an assistant step with a tool call and a log output
 * of about 10 KB as its result, two usage records (the call, then the answer), and every 100 turns
 * a compaction (its record and a snapshot of the context after it).
 */
import { mkdirSync } from 'fs';
import { join } from 'path';
import type { Message } from '../../src/core/model/message';
import type { CompactionEventRecord, RequestItem } from '../../src/core/model/records';
import { openStore } from '../../src/node/store';
import { call, logOutput, msg, prng } from '../../test/support/syntheticSession';
import { withStoredCounts } from './seedSession';

export async function seedLongSession(storageDir: string, turns: number): Promise<string> {
  const folder = join(storageDir, 'store');
  mkdirSync(folder, { recursive: true });
  const store = await openStore(folder, { debounceMs: 1e9, sync: false });
  const { id } = await store.createSession({ title: `Bench session of ${turns} turns`, origin: 'chat' });
  const random = prng(turns);
  let at = Date.now() - turns * 3 - 60_000;
  let items: RequestItem[] = [];
  const recent: Message[] = [];
  for (let t = 0; t < turns; t++) {
    const c = call('run_command', { command: `npm test -- --grep case${t}` });
    const batch = withStoredCounts([
      msg({ role: 'user', content: `Turn ${t}: keep going.`, createdAt: at++ }),
      msg({ role: 'assistant', content: `Step ${t}.`, toolCalls: [c], createdAt: at++ }),
      msg({ role: 'tool', content: logOutput(random, 120, random() < 0.2), toolCallId: c.id, toolName: 'run_command', createdAt: at++ }),
    ]);
    await store.putMessages(id, batch);
    recent.push(...batch);
    if (recent.length > 30) recent.splice(0, recent.length - 30);
    for (const [i, m] of batch.entries()) {
      if (i === 0) continue;
      items = [...items.slice(-80), { messageId: m.id, role: m.role, kind: m.kind, tokens: 200 + (m.content.length >> 2), badges: [], preview: m.content.slice(0, 80) }];
      await store.addRequestUsage({
        id: `u${t}-${i}`, sessionId: id, requestIndex: 2 * t + i - 1, createdAt: m.createdAt, model: 'bench-model', contextWindow: 200_000, maxOutputTokens: 8_192,
        components: { system: 900, skills: 0, tools: 1_200, messages: items.length * 200, toolResults: 0, summaries: 0 }, estimatedInputTokens: 2_100 + items.length * 200, items,
      });
    }
    if (t % 100 === 99) {
      await store.addCompactionEvent({ id: `cmp${t}`, sessionId: id, trigger: 'auto', status: 'complete', strategies: ['threshold-summarization'], startedAt: at - 1, tokensBefore: 150_000, tokensAfter: 20_000, messagesBefore: 300, messagesAfter: 2, durationMs: 5, removed: [] } as unknown as CompactionEventRecord);
      await store.saveSnapshot({ sessionId: id, compactionId: `cmp${t}`, tokenCount: 20_000, createdAt: at - 1, messages: withStoredCounts([msg({ role: 'user', content: `Summary up to turn ${t}.`, createdAt: at - 1 }), ...recent.slice(-9)]) });
    }
    if (t % 20 === 19) await store.flush();
  }
  await store.close();
  return id;
}
