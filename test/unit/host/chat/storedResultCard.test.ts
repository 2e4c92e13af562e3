import { strict as assert } from 'assert';
import { toolView } from '../../../../src/host/chat/chatEntryViews';
import { recordToolResult } from '../../../../src/core/toolOutput/recorder';
import { withSettings } from '../../../../src/core/settings';
import { tempStore } from '../../../support/tempStore';

const call = { id: 'call_1', name: 'run_command', arguments: '{"command":"npm test"}' };

describe('a stored tool result in the chat', function () {
  this.timeout(60_000);
  let env: Awaited<ReturnType<typeof tempStore>>;
  let sessionId: string;
  beforeEach(async () => {
    env = await tempStore();
    sessionId = (await env.store.createSession({ title: 't' })).id;
  });
  afterEach(() => env.dispose());

  it('shows its size in words and the output, not the lines written for the model (which still get them)', async () => {
    const output = Array.from({ length: 900 }, (_, i) => `line ${i + 1}: PASS test/case-${i}.test.ts`).join('\n');
    const message = await recordToolResult({ store: env.store, sessionId, call, output, settings: withSettings() });
    const ref = message.meta?.offloadRef;
    assert.ok(ref, 'the output was stored');
    assert.match(message.content, /^\[Tool result stored — [\d,]+ bytes, 900 lines from "run_command"; ref_id="/, 'the model is sent the reference as before');
    const card = toolView(call, message);
    assert.deepEqual(card.stored, { lines: 900, bytes: Buffer.byteLength(output) });
    assert.equal(card.offloadRef, ref);
    assert.ok(card.resultPreview?.startsWith('line 1: PASS'), card.resultPreview?.slice(0, 80));
    assert.doesNotMatch(card.resultPreview ?? '', /ref_id|Tool result stored|read_result/);
  });

  it('leaves a small result as it is', async () => {
    const message = await recordToolResult({ store: env.store, sessionId, call, output: 'ok [Tool result stored — 1 bytes]\n', settings: withSettings() });
    const card = toolView(call, message);
    assert.equal(card.stored, undefined);
    assert.equal(card.resultPreview, 'ok [Tool result stored — 1 bytes]\n');
  });
});
