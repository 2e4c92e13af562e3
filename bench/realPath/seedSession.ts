/**
 * The benches' never-compacted session: a user request every 50 messages, then assistant steps
 * with a tool call each and a short log output as the result (about 270 bytes of request JSON a
 * message on average, like a long agent session), seeded through the real chain.
 */
import { execFileSync } from 'child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { withStoredCount } from '../../src/core/accounting/messageTokens';
import { getTokenCounter } from '../../src/core/accounting/tokenizer';
import type { Message } from '../../src/core/model/message';
import { call, logOutput, msg, prng } from '../../test/support/syntheticSession';
import { seedByRealChain } from './seedByRealChain';

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
 * session of `count` messages, run through the real chain (seedByRealChain.ts) in a window larger
 * than the session (20,000,000 tokens, the bench model's), so it never compacted: every request
 * carried every message before it, and its usage record is stored as the session stores it.
 * `flushEvery`: messages written between two flushes. A session that ran that long flushed many
 * times (its segments sealed at the store's size as it grew); undefined writes it in one flush,
 * one segment file of the whole session.
 */
export async function seedSession(storageDir: string, count: number, flushEvery?: number): Promise<string> {
  const seeded = await seedByRealChain(storageDir, {
    title: `Bench session of ${count} messages`,
    messages: sessionMessages(count, Date.now() - count - 60_000),
    contextWindow: 20_000_000,
    flushEvery,
  });
  return seeded.sessionId;
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
