/**
 * An image in a session on a real sql.js store: an item of its own in the request; its bytes stored
 * once and read back after the store is closed and opened again; shared with a fork; replaced by a
 * pointer when compaction takes it out, the original still readable with read_result.
 */
import assert from 'node:assert/strict';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { forkSession } from '../../../../src/core/context/forkSession';
import { loadImageData } from '../../../../src/core/images/imageData';
import { imageAttachment, imagePartOf } from '../../../../src/core/images/imageMessages';
import { storedImageOutput } from '../../../../src/core/images/storedImage';
import { userMessage } from '../../../../src/core/model/factories';
import type { SessionStore } from '../../../../src/core/ports/sessionStore';
import { toAnthropicBody } from '../../../../src/core/providers/anthropic/anthropicRequest';
import { withSettings } from '../../../../src/core/settings';
import { pngFile } from '../../../support/imageFiles';
import { storeFolderPerTest } from '../../node/store/fixtures/storeFolder';

const counter = getTokenCounter('o200k_base');
const settings = withSettings({ contextWindow: 32_000, maxOutputTokens: 4_000 });
const open = (store: SessionStore, sessionId: string) => ContextSession.open({ store, sessionId, settings, counter });
const FIXED = { fixed: { system: 100, skills: 0, tools: 0 } };
const png = pngFile(900, 600);
const base64 = Buffer.from(png).toString('base64');

function imageBlocks(session: ContextSession): any[] {
  const body = toAnthropicBody({ model: 'claude-sonnet-4-5', system: [], messages: session.messages.filter((m) => m.agentVisible), tools: [], maxOutputTokens: 100 }) as any;
  return body.messages.flatMap((m: any) => m.content).filter((b: any) => b.type === 'image');
}

describe('an image in a stored session', function () {
  this.timeout(60_000);
  const stores = storeFolderPerTest('tally-images-');

  it('is an item of its own, survives closing the store, is shared with a fork, and compaction leaves a pointer to the stored original', async () => {
    const folder = stores.folder();
    let store = await stores.openStore(folder, { debounceMs: 5 });
    const { id } = await store.createSession({ title: 'Look at this' });
    let session = await open(store, id);
    const part = imagePartOf({ bytes: png, origin: 'pasted', label: 'pasted image' }, { providerId: 'anthropic' });
    assert.equal(part.tokens, 720, '900×600 / 750');
    await session.append(imageAttachment(part), userMessage('What is wrong here?'));
    const request = await session.nextRequest(FIXED);
    const image = request.plan.items.find((i) => i.kind === 'image');
    assert.ok(image, 'the image is an item of the request');
    assert.equal(image.label, 'Image: pasted image (PNG 900×600, 720 tokens)');
    assert.ok(image.tokens >= 720 && image.tokens < 760, `its tokens are the image's and its caption's: ${image.tokens}`);
    await session.recordResponse(request, { model: 'claude-sonnet-4-5', reported: { inputTokens: request.plan.budget.used, outputTokens: 5 } });
    await store.close();

    // Opened again: the message holds the record, the bytes come back from the blob store.
    store = await stores.openStore(folder, { debounceMs: 5 });
    session = await open(store, id);
    const [loaded] = session.messages.filter((m) => m.images?.length);
    assert.deepEqual(loaded.images?.map((i) => [i.width, i.height, i.tokens, i.origin]), [[900, 600, 720, 'pasted']]);
    assert.equal(imageBlocks(session).length, 0, 'before its bytes are read back it is not sent as an image');
    assert.deepEqual(await loadImageData(session.messages, store, id), []);
    assert.equal(imageBlocks(session)[0].source.data, base64);

    // A fork of request #0 reads the same stored bytes.
    const forked = await forkSession(store, { fromSessionId: id, fromRequestIndex: 0 });
    const fork = await open(store, forked.info.id);
    assert.deepEqual(await loadImageData(fork.messages, store, forked.info.id), []);
    assert.equal(imageBlocks(fork)[0].source.data, base64);

    // A later turn, then compaction: the older image becomes a pointer, and the record says so.
    await session.append({ ...userMessage('And now?'), createdAt: session.messages[session.messages.length - 1].createdAt + 1 });
    const result = await session.compact({ trigger: 'manual', only: ['image-pointers'] });
    assert.equal(result.status, 'complete');
    const [event] = await store.listCompactionEvents(id);
    assert.deepEqual(event.strategies, ['image-pointers']);
    assert.deepEqual(event.removed.map((r) => [r.messageId, r.strategy]), [[loaded.id, 'image-pointers']]);
    const pointer = session.messages.find((m) => m.meta?.replaces?.includes(loaded.id));
    assert.ok(pointer && !pointer.images, 'the image left the context');
    const ref = loaded.images![0].ref!;
    assert.ok(pointer.content.endsWith(`[Image removed by compaction: pasted image (PNG 900×600, 720 tokens), pasted by the user; read_result ref_id="${ref}" shows it again]`), pointer.content);
    assert.equal(imageBlocks(session).length, 0);
    const again = await storedImageOutput(store, id, ref);
    assert.deepEqual(Buffer.from(again!.images![0].bytes), Buffer.from(png), 'the stored original is intact');
  });
});
