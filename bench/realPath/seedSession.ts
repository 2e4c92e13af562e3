/**
 * Writes a session of `count` messages through the store's own functions (createSession,
 * putMessages, flush), as a chat session that ran that long would have left them (each message
 * with its token count, as the session stores it): a user request
 * every 50 messages, then assistant steps with a tool call each and a short log output as the
 * result (about 270 bytes of request JSON a message on average, like a long agent session).
 */
import { execFileSync } from 'child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { withStoredCount } from '../../src/core/accounting/messageTokens';
import { getTokenCounter } from '../../src/core/accounting/tokenizer';
import type { Message } from '../../src/core/model/message';
import { ConversationItems } from '../../src/core/context/conversationItems';
import { requestContent } from '../../src/core/context/requestItems';
import { openStore } from '../../src/node/store';
import { call, logOutput, msg, prng } from '../../test/support/syntheticSession';

export function sessionMessages(count: number, startAt: number): Message[] {
  const random = prng(count);
  const out: Message[] = [];
  const at = () => startAt + out.length;
  while (out.length < count) {
    if (out.length % 50 === 0) {
      out.push(msg({ role: 'user', content: `Task ${out.length / 50 + 1}: fix the failing build in module ${Math.floor(random() * 100)} and run the tests.`, createdAt: at() }));
      continue;
    }
    const c = call('run_command', { command: `npm test -- --grep case${out.length}` });
    out.push(msg({ role: 'assistant', content: `Step ${out.length}: checking the next module.`, toolCalls: [c], createdAt: at() }));
    out.push(msg({ role: 'tool', content: logOutput(random, 3 + Math.floor(random() * 5), false), toolCallId: c.id, toolName: 'run_command', createdAt: at() }));
  }
  return out.slice(0, count);
}

/** The messages as a session stores them: each with its count (o200k_base, the extension's default), so resuming counts nothing. */
export function withStoredCounts(messages: readonly Message[]): Message[] {
  const counter = getTokenCounter('o200k_base');
  return messages.map((m) => withStoredCount(m, counter));
}

/**
 * Seeds `<storageDir>/store` (where the extension keeps its store under globalStorage) with one chat
 * session. `flushEvery`: messages written between two flushes. A session that ran that long flushed
 * many times (its segments sealed at the store's size as it grew); undefined writes it in one flush,
 * one segment file of the whole session. Each assistant message answered a request, and the
 * session keeps that request's usage record with its item list (every message before it, and the
 * prompt's own items), stored the way the session stores them: as changes of the previous list.
 */
export async function seedSession(storageDir: string, count: number, flushEvery?: number): Promise<string> {
  const folder = join(storageDir, 'store');
  mkdirSync(folder, { recursive: true });
  const store = await openStore(folder, { debounceMs: 1e9 });
  const { id } = await store.createSession({ title: `Bench session of ${count} messages`, origin: 'chat' });
  const messages = withStoredCounts(sessionMessages(count, Date.now() - count - 60_000));
  const batch = flushEvery ?? messages.length;
  const conversation = new ConversationItems();
  const fixed = { system: 900, skills: 0, tools: 1_200, hooks: 0 };
  const storedCount = (m: Message) => m.tokens ?? 0;
  let requestIndex = 0;
  // The conversation as the session holds it: one list that grows.
  const sent: Message[] = [];
  for (let at = 0; at < messages.length; at += batch) {
    const written = messages.slice(at, at + batch);
    await store.putMessages(id, written);
    for (const m of written) {
      if (m.role !== 'assistant') {
        sent.push(m);
        continue;
      }
      // The request this message answered: every message before it, its items as the session lists them.
      const { items } = requestContent({ messages: sent, fixed, count: storedCount, reuse: conversation });
      const inputTokens = items.reduce((sum, item) => sum + item.tokens, 0);
      await store.addRequestUsage({
        id: `seed-usage-${requestIndex}`, sessionId: id, requestIndex: requestIndex++, createdAt: m.createdAt, model: 'bench-model', contextWindow: 20_000_000, maxOutputTokens: 8_192,
        components: { system: fixed.system, skills: 0, tools: fixed.tools, messages: inputTokens - fixed.system - fixed.tools, toolResults: 0, summaries: 0 }, estimatedInputTokens: inputTokens, items, itemCount: items.length,
      });
      sent.push(m);
    }
    await store.flush();
  }
  await store.close();
  return id;
}

/**
 * A fresh copy of a seeded storage folder, so every run starts from the same session. With the
 * files' times to the nanosecond (cp -a; Node's copy keeps whole milliseconds only): the facts
 * recorded of each segment (by size and time) hold for the copy, as they do for a store reopened
 * where it is; a copy with other times would be a store opened the first time.
 */
export function copyStorage(from: string, to: string): void {
  execFileSync('cp', ['-a', `${from}/.`, to]);
}

/** A small workspace folder for a bench run (a few files for the agent's tools to find). */
export function workspaceFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'tally-bench-ws-'));
  mkdirSync(join(folder, 'src'));
  writeFileSync(join(folder, 'README.md'), '# bench\n');
  writeFileSync(join(folder, 'package.json'), '{"name":"bench"}\n');
  writeFileSync(join(folder, 'src', 'index.ts'), 'export const answer = 42;\n');
  return folder;
}
