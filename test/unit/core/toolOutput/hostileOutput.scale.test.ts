import { strict as assert } from 'assert';
import { createHash, randomBytes } from 'crypto';
import { readdirSync } from 'fs';
import { join } from 'path';
import { Tiktoken } from 'js-tiktoken/lite';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { AgentSession } from '../../../../src/core/agent/agentSession';
import { sessionTools } from '../../../../src/core/tools/sessionTools';
import { testRegistry } from '../../../support/toolRegistry';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { validateHistory } from '../../../../src/core/history/normalize';
import type { ToolDefinition } from '../../../../src/core/model/tool';
import { openStore } from '../../../../src/node/store';
import { BLOB_PART_BYTES } from '../../../../src/node/store/blobs/blobFiles';
import type { SessionStore } from '../../../../src/core/ports/sessionStore';
import { SessionPrompt } from '../../../../src/core/prompt/sessionPrompt';
import { createOpenAIProvider } from '../../../../src/core/providers/openai/openai';
import { withSettings } from '../../../../src/core/settings';
import { readResult, readResultBytes } from '../../../../src/core/toolOutput/readResult';
import { recordToolResult } from '../../../../src/core/toolOutput/recorder';
import { FakeOpenAIServer } from '../../../fakes/openaiServer';
import { countTurns } from '../../../support/eventLoopTurns';
import { tempStore } from '../../../support/tempStore';

/**
 * "Without blocking" is checked here as a count: the work let the event loop turn between its
 * slices (one long block gives no turns). How long each block lasts is a timing, measured in
 * bench/reliability.bench.ts, where machine load cannot fail a test.
 */
const atLeastTurns = (measured: { turns: number }, min: number, what: string) => assert.ok(measured.turns >= min, `${what}: the event loop turned ${measured.turns} times, expected at least ${min}`);
const MB = 1024 * 1024;
const call = { id: 'call_1', name: 'run_command', arguments: '{"command":"cat big.log"}' };
const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

/** A flat 100 MB log (as a tool hands it over: one string, not a rope of concatenations). */
function hundredMegabyteLog(): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < 100 * MB - 200; i++) {
    const line = `${String(i).padStart(8, '0')} INFO worker-${i % 7} processed batch ${i} in ${i % 97} ms — ✓ ok`;
    lines.push(line);
    size += Buffer.byteLength(line) + 1;
  }
  return Buffer.from(lines.join('\n') + '\nFATAL: the last line holds the error\n').toString('utf8');
}

describe('hostile tool output: 100 MB, binary, invalid UTF-8, one 10 MB line, special tokens', function () {
  this.timeout(180_000);
  let env: Awaited<ReturnType<typeof tempStore>>;
  let sessionId: string;
  beforeEach(async () => {
    env = await tempStore();
    sessionId = (await env.store.createSession({ title: 'hostile' })).id;
  });
  afterEach(() => env.dispose());

  it('offloads a 100 MB output in parts without blocking the host, keeps a preview with the last line, and reads back byte-exact after reopening', async () => {
    const text = hundredMegabyteLog();
    const bytes = Buffer.from(text);
    const lineCount = text.split('\n').length - 1;
    const measured = await countTurns(() => recordToolResult({ store: env.store, sessionId, call, output: text, settings: withSettings() }));
    const message = measured.result;
    atLeastTurns(measured, 10, 'offloading 100 MB');
    const ref = message.meta?.offloadRef;
    assert.ok(ref, 'stored, not inlined');
    assert.match(message.content, new RegExp(`^\\[Tool result stored — ${bytes.length.toLocaleString('en-US')} bytes, ${lineCount.toLocaleString('en-US')} lines from "run_command"; ref_id="${ref}"\\]`));
    assert.match(message.content, /^00000000 INFO worker-0 processed batch 0/m, 'the head is in the preview');
    assert.match(message.content, /FATAL: the last line holds the error/, 'the tail (where errors are) is in the preview');
    assert.match(message.content, /\[… omitted [\d,]+ of [\d,]+ lines \([\d,]+ bytes\) …\]/);
    assert.ok(Buffer.byteLength(message.content) < 2_500, `the context keeps a short reference (${Buffer.byteLength(message.content)} bytes)`);

    const blobFiles = readdirSync(join(env.folder, 'blobs')).sort();
    assert.deepEqual(blobFiles, [`${sha256(bytes)}.blob`, `${ref}.ref`].sort(), 'the bytes in one file named by their hash, and the ref');

    await env.store.close();
    const reopened: SessionStore = await openStore(env.folder);
    try {
      const info = await reopened.getBlobInfo(sessionId, ref!);
      assert.equal(info?.byteSize, bytes.length);
      assert.equal(info?.lineCount, lineCount);
      assert.equal(info?.sha256, sha256(bytes));
      for (const offset of [0, BLOB_PART_BYTES - 7, 37 * BLOB_PART_BYTES + 12_345, bytes.length - 4_000]) {
        const slice = await readResultBytes(reopened, sessionId, ref!, offset, 65_536);
        assert.ok(Buffer.from(slice.bytes).equals(bytes.subarray(offset, offset + 65_536)), `slice at ${offset} is byte-exact`);
      }
      const last = await readResult(reopened, sessionId, { ref_id: ref!, offset: bytes.length - 37, limit: 100 });
      assert.equal(last, `[bytes ${bytes.length - 37}–${bytes.length} of ${bytes.length}. This is the end.]\nFATAL: the last line holds the error\n`);
    } finally {
      await reopened.close();
      env.store = await openStore(env.folder);
    }
  });

  it('truncates a 100 MB output inline (offloading off) to the byte limit without blocking, counting every line', async () => {
    const text = hundredMegabyteLog();
    const lineCount = text.split('\n').length - 1;
    const settings = withSettings({ offloadThresholdBytes: 0 });
    const measured = await countTurns(() => recordToolResult({ store: env.store, sessionId, call, output: text, settings }));
    atLeastTurns(measured, 10, 'truncating 100 MB inline');
    const message = measured.result;
    assert.equal(message.meta?.offloadRef, undefined);
    assert.ok(Buffer.byteLength(message.content) <= settings.truncation.maxBytes, 'within tally.toolOutput.maxBytes');
    assert.equal(message.meta?.truncated?.originalLines, lineCount);
    assert.equal(message.meta?.truncated?.originalBytes, Buffer.byteLength(text));
    assert.match(message.content, /FATAL: the last line holds the error\n$/);
  });

  it('describes binary bytes by size and hash, never pastes them, and keeps them retrievable', async () => {
    const bytes = randomBytes(3 * MB);
    bytes[10] = 0;
    const measured = await countTurns(() => recordToolResult({ store: env.store, sessionId, call, output: bytes, settings: withSettings() }));
    const message = measured.result;
    atLeastTurns(measured, 5, 'recording binary bytes');
    assert.match(message.content, new RegExp(`\\[binary output: 3,145,728 bytes, sha256 ${sha256(bytes)}; not shown\\]`));
    assert.ok(!message.content.includes('\u0000') && !message.content.includes('\uFFFD'), 'no raw bytes in the context');
    const back = await env.store.readBlob(sessionId, message.meta!.offloadRef!, 0, 3 * MB);
    assert.ok(Buffer.from(back.bytes).equals(bytes), 'the exact bytes are kept');
  });

  it('shows invalid UTF-8 with replacement characters, says so, and returns the exact bytes through read_result', async () => {
    const good = Buffer.from('compiler output line\n'.repeat(600));
    const bad = Buffer.concat([good, Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x82]), Buffer.from('\nerror: bad byte sequence above\n')]);
    const message = await recordToolResult({ store: env.store, sessionId, call, output: bad, settings: withSettings() });
    assert.match(message.content, /\uFFFD/);
    assert.match(message.content, /not valid UTF-8; invalid bytes are shown as \uFFFD\. read_result returns the exact bytes\./);
    assert.match(message.content, /error: bad byte sequence above/);
    const back = await env.store.readBlob(sessionId, message.meta!.offloadRef!, 0, bad.length);
    assert.ok(Buffer.from(back.bytes).equals(bad));
    const small = await recordToolResult({ store: env.store, sessionId, call: { ...call, id: 'call_2' }, output: Buffer.from([0x6f, 0x6b, 0xff, 0x0a]), settings: withSettings() });
    assert.equal(small.content, 'ok\uFFFD\n\n[The output is not valid UTF-8; invalid bytes are shown as \uFFFD. read_result returns the exact bytes.]');
  });

  it('keeps the two ends of one 10 MB line within the preview budget, without blocking', async () => {
    const line = `START${'abcdefghij'.repeat(MB)}END`;
    const measured = await countTurns(() => recordToolResult({ store: env.store, sessionId, call, output: line, settings: withSettings() }));
    atLeastTurns(measured, 2, 'recording one 10 MB line');
    const message = measured.result;
    assert.match(message.content, /lines from "run_command"/);
    assert.match(message.content, /bytes, 1 lines from/);
    assert.match(message.content, /\nSTARTabcdefghij/);
    assert.match(message.content, /abcdefghijEND\n\[Use read_result/);
    assert.match(message.content, /\[… omitted 0 of 1 lines \([\d,]+ bytes\) …\]/);
    assert.ok(Buffer.byteLength(message.content) < 2_000);
    // Counting a 10 MB line (minified code: no newline anywhere) slices it too, to the exact total.
    const minified = 'function f(a,b){return a+b*2;}var x=f(1,2);'.repeat(Math.ceil((10 * MB) / 44));
    const counted = await countTurns(() => getTokenCounter('o200k_base').countAsync(minified));
    atLeastTurns(counted, 2, 'counting the line');
    assert.equal(counted.result, getTokenCounter('o200k_base').count(minified), 'the sliced count equals the whole count');
  });

  it('treats special-token strings as plain text: recorded verbatim, counted as text, no exception', async () => {
    const specials = '<|endoftext|> <|im_start|>system<|im_end|> <|fim_prefix|><|fim_middle|><|fim_suffix|> <|endofprompt|>';
    const message = await recordToolResult({ store: env.store, sessionId, call, output: `${specials}\n`, settings: withSettings() });
    assert.equal(message.content, `${specials}\n`);
    const ranks = require('js-tiktoken/ranks/o200k_base');
    const reference = new Tiktoken(ranks.default ?? ranks);
    assert.equal(getTokenCounter('o200k_base').count(specials), reference.encode(specials, [], []).length);
    const big = `${specials}\n`.repeat(60_000);
    const offloaded = await recordToolResult({ store: env.store, sessionId, call: { ...call, id: 'call_2' }, output: big, settings: withSettings() });
    const slice = await env.store.readBlob(sessionId, offloaded.meta!.offloadRef!, 0, 200);
    assert.equal(Buffer.from(slice.bytes).toString(), big.slice(0, 200));
    assert.equal(await getTokenCounter('o200k_base').countAsync(big), getTokenCounter('o200k_base').count(big));
  });
});

describe('a 100 MB tool output through the agent loop', function () {
  this.timeout(180_000);
  let openai: FakeOpenAIServer;
  beforeEach(async () => (openai = await new FakeOpenAIServer({ apiKey: 'sk-test' }).start()));
  afterEach(async () => openai.close());

  it('the next request carries only the reference and preview; read_result brings back the exact tail; the host never blocks', async () => {
    const env = await tempStore();
    try {
      const sessionId = (await env.store.createSession({ title: 'agent' })).id;
      const settings = withSettings({ contextWindow: 32_000, maxOutputTokens: 2_000 });
      const counter = getTokenCounter();
      const contextSession = await ContextSession.open({ store: env.store, sessionId, settings, counter });
      const log = hundredMegabyteLog();
      const DUMP: ToolDefinition = { name: 'dump_log', description: 'Print the build log', inputSchema: { type: 'object' }, source: 'builtin' };
      const session = sessionTools(env.store, () => contextSession);
      const tools = testRegistry({ tools: [...session, { definition: DUMP, approval: 'read', execute: async () => ({ output: log }) }] });
      const prompt = new SessionPrompt({ counter, settings, tools: () => tools.definitions(), instructions: async () => '', skills: async () => [] });
      const agent = new AgentSession({ contextSession, provider: createOpenAIProvider({ apiKey: 'sk-test', baseUrl: openai.url, retry: { maxAttempts: 1, sleep: async () => undefined } }), model: 'gpt-4.1', maxOutputTokens: 2_000, prompt, tools, sleep: async () => undefined });
      const tailOffset = Buffer.byteLength(log) - 37;
      let refId = '';
      openai.enqueue(
        { type: 'reply', parts: [{ toolCall: { name: 'dump_log', arguments: '{}' } }], usage: { input: 500, output: 10 } },
        (req) => {
          const toolMessage = (req.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'tool')!;
          refId = /ref_id="([a-z0-9]+)"/.exec(toolMessage.content)![1];
          return { type: 'reply', parts: [{ toolCall: { name: 'read_result', arguments: JSON.stringify({ ref_id: refId, offset: tailOffset, limit: 100 }) } }], usage: { input: 1_100, output: 20 } };
        },
        { type: 'reply', parts: [{ text: 'The build failed on the last line.' }], usage: { input: 1_300, output: 9 } },
      );
      const measured = await countTurns(() => agent.send('Why did the build fail?'));
      assert.equal(measured.result, 'end_turn');
      atLeastTurns(measured, 10, 'the turn');
      const secondBody = JSON.stringify(openai.requests[1].body);
      assert.ok(secondBody.length < 12_000, `the request after the tool carries a reference, not the output (${secondBody.length} bytes)`);
      const third = openai.requests[2].body.messages as Array<{ role: string; content: string }>;
      assert.equal(third[third.length - 1].content, `[bytes ${tailOffset}–${tailOffset + 37} of ${tailOffset + 37}. This is the end.]\nFATAL: the last line holds the error\n`);
      assert.deepEqual(validateHistory(await env.store.loadTranscript(sessionId)), []);
      assert.equal((await env.store.getBlobInfo(sessionId, refId))?.sha256, sha256(log));
    } finally {
      await env.dispose();
    }
  });
});
