import { strict as assert } from 'assert';
import { randomBytes } from 'crypto';
import { readResult, readResultBytes } from '../../../../src/core/toolOutput/readResult';
import { recordToolResult } from '../../../../src/core/toolOutput/recorder';
import { openStore } from '../../../../src/node/store';
import type { SessionStore } from '../../../../src/core/ports/sessionStore';
import { withSettings } from '../../../../src/core/settings';
import { tempStore } from '../../../support/tempStore';

const call = { id: 'call_1', name: 'run_command', arguments: '{"command":"make"}' };

describe('recording tool results (truncation and offloading)', function () {
  this.timeout(60_000);
  let env: Awaited<ReturnType<typeof tempStore>>;
  let sessionId: string;
  beforeEach(async () => {
    env = await tempStore();
    sessionId = (await env.store.createSession({ title: 't' })).id;
  });
  afterEach(() => env.dispose());

  it('keeps a small output inline as it is', async () => {
    const m = await recordToolResult({ store: env.store, sessionId, call, output: 'ok\n', settings: withSettings() });
    assert.equal(m.content, 'ok\n');
    assert.equal(m.meta?.offloadRef, undefined);
    assert.equal(m.toolCallId, 'call_1');
  });

  it('offloads a large output: reference + preview in context, byte-exact slices back (5 MB, after reopening)', async () => {
    const bytes = randomBytes(5 * 1024 * 1024);
    // Printable so it is not treated as binary: base64 of random bytes, 5 MB.
    const text = bytes.toString('base64').slice(0, 5 * 1024 * 1024);
    const m = await recordToolResult({ store: env.store, sessionId, call, output: text, settings: withSettings() });
    const ref = m.meta?.offloadRef;
    assert.ok(ref);
    assert.match(m.content, new RegExp(`^\\[Tool result stored — 5,242,880 bytes, 1 lines from "run_command"; ref_id="${ref}"\\]`));
    assert.match(m.content, /Use read_result with ref_id=/);
    assert.ok(Buffer.byteLength(m.content) < 4096, 'the context keeps only a short reference');
    await env.store.close();
    const reopened: SessionStore = await openStore(env.folder);
    try {
      const parts: Buffer[] = [];
      for (let offset = 0; offset < text.length; offset += 300_001) {
        const slice = await readResultBytes(reopened, sessionId, ref!, offset, 65_536);
        parts.push(Buffer.from(slice.bytes));
        assert.equal(slice.totalBytes, 5 * 1024 * 1024);
      }
      const whole = await reopened.readBlob(sessionId, ref!, 0, 6 * 1024 * 1024);
      assert.ok(Buffer.from(whole.bytes).equals(Buffer.from(text)), 'round-trips byte for byte');
      assert.ok(Buffer.concat(parts).equals(Buffer.concat(parts.map((_, i) => Buffer.from(text).subarray(i * 300_001, i * 300_001 + 65_536)))));
      const info = await reopened.getBlobInfo(sessionId, ref!);
      assert.equal(info?.sha256, require('crypto').createHash('sha256').update(text).digest('hex'));
      const page = await readResult(reopened, sessionId, { ref_id: ref!, offset: 10, limit: 20 });
      assert.equal(page, `[bytes 10–30 of 5242880. Next: offset=30.]\n${text.slice(10, 30)}`);
      await assert.rejects(readResult(reopened, sessionId, { ref_id: 'nosuchref1', offset: 0 }), /no stored result/);
      await assert.rejects(readResult(reopened, sessionId, { ref_id: ref!, offset: -1 }), /offset must be/);
    } finally {
      await reopened.close();
      env.store = await openStore(env.folder);
    }
  });

  it('describes binary output instead of pasting it, and still stores it', async () => {
    const binary = Buffer.concat([Buffer.from([0, 1, 2, 255]), randomBytes(10_000)]);
    const m = await recordToolResult({ store: env.store, sessionId, call, output: binary, settings: withSettings() });
    assert.match(m.content, /\[binary output: 10,004 bytes, sha256 [0-9a-f]{64}; not shown\]/);
    const back = await env.store.readBlob(sessionId, m.meta!.offloadRef!, 0, 20_000);
    assert.ok(Buffer.from(back.bytes).equals(binary));
  });

  it('falls back to inline truncation with a note when the store fails', async () => {
    const failing = { ...env.store, putBlob: async () => { throw new Error('ENOSPC: no space left on device'); } } as unknown as SessionStore;
    const output = Array.from({ length: 2000 }, (_, i) => `line ${i}`).join('\n') + '\nError: last line';
    const m = await recordToolResult({ store: failing, sessionId, call, output, settings: withSettings() });
    assert.match(m.content, /omitted [\d,]+ of 2,001 lines/);
    assert.match(m.content, /Error: last line/);
    assert.match(m.content, /could not be stored \(ENOSPC: no space left on device\)/);
  });

  it('keeps special-token strings in a tool output as text', async () => {
    const m = await recordToolResult({ store: env.store, sessionId, call, output: 'model said <|endoftext|> here', settings: withSettings() });
    assert.equal(m.content, 'model said <|endoftext|> here');
  });
});
