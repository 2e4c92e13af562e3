/**
 * A large image chip offers a smaller size that costs fewer tokens: the chip says both figures, the
 * webview's smaller copy replaces the original when it is the image asked for, and the request
 * then carries the smaller image at the smaller cost. A copy that is not what was asked for is
 * refused with the reason, and the original stays attached.
 */
import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { userMessage } from '../../../../src/core/model/factories';
import { withSettings } from '../../../../src/core/settings';
import { AttachmentDraft, type AttachmentSources, type DraftSession } from '../../../../src/host/chat/attachmentDraft';
import { DownscaleError } from '../../../../src/host/chat/downscaledImage';
import { attachmentHandlers } from '../../../../src/host/chat/attachmentIntents';
import type { ChatAttachmentView, ImageToDownscale } from '../../../../src/protocol/attachments';
import { parseChatMessage } from '../../../../src/protocol/validate';
import { jpegFile, pngFile } from '../../../support/imageFiles';
import { tempStore } from '../../../support/tempStore';

const noSources: AttachmentSources = {
  read: async () => Promise.reject(new Error('not in this fake')),
  complete: async () => [],
  dropped: async () => Promise.reject(new Error('not in this fake')),
};

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

describe('downscaling an image chip before sending', function () {
  this.timeout(60_000);
  const disposers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const d of disposers.splice(0)) await d();
  });

  async function setup(billing: DraftSession['imageBilling'] = { providerId: 'anthropic' }) {
    const env = await tempStore();
    disposers.push(() => env.dispose());
    const settings = withSettings({ contextWindow: 32_000, maxOutputTokens: 2_000 });
    const sessionId = (await env.store.createSession({ title: 'images' })).id;
    const contextSession = await ContextSession.open({ store: env.store, sessionId, settings, counter: getTokenCounter() });
    const draft = new AttachmentDraft(noSources);
    const session: DraftSession = { sessionId, settings, messages: contextSession.messages, count: contextSession.count, store: env.store, figures: () => undefined, ...(billing ? { imageBilling: billing } : {}) };
    // 3136×784 is billed by Anthropic at 1568×392 (820 tokens); 1024×256 costs 350.
    const original = jpegFile(3136, 784);
    const chip = await draft.add(session, { kind: 'image', mediaType: 'image/jpeg', data: b64(original), name: 'wide.jpg' });
    return { draft, session, contextSession, chip, original };
  }

  it('the chip shows both costs, and the smaller copy replaces the original in the request at the smaller cost', async () => {
    const { draft, session, contextSession, chip } = await setup();
    assert.ok(chip.tokens! > 820 && chip.tokens! < 860, `820 for the image and its caption: ${chip.tokens}`);
    assert.equal(chip.smaller?.width, 1024);
    assert.equal(chip.smaller?.height, 256);
    assert.ok(Math.abs(chip.smaller!.tokens - 350 - (chip.tokens! - 820)) <= 2, 'about the same caption around 350 image tokens');

    const request = draft.imageToDownscale(session, chip.id);
    assert.deepEqual({ ...request, data: undefined }, { id: chip.id, mediaType: 'image/jpeg', data: undefined, width: 1024, height: 256 });
    await draft.downscale(session, chip.id, 'image/jpeg', jpegFile(1024, 256));
    const [after] = draft.views(session);
    assert.equal(after.tokens, chip.smaller!.tokens, 'the chip now costs what it offered');
    assert.equal(after.smaller, undefined, 'nothing smaller to offer any more');
    assert.equal(after.label, 'wide.jpg · JPEG 1024×256');

    const sent = await draft.takeForSend(session);
    const image = sent[0].images![0];
    assert.deepEqual([image.width, image.height, image.tokens], [1024, 256, 350]);
    assert.deepEqual({ ...image.original, byteSize: undefined }, { width: 3136, height: 784, byteSize: undefined, tokens: 820 });
    await contextSession.append(...sent, userMessage('what is this?'));
    const planned = await contextSession.nextRequest({ fixed: { system: 0, skills: 0, tools: 0 } });
    assert.equal(planned.plan.items.find((i) => i.kind === 'image')?.tokens, chip.smaller!.tokens, 'the inspector item costs the smaller figure');
  });

  it('a copy that is not the image asked for is refused with the reason, and the original stays', async () => {
    const { draft, session, chip, original } = await setup();
    const padded = new Uint8Array(original.length + 10);
    padded.set(jpegFile(1024, 256));
    const cases: Array<[string, 'image/png' | 'image/jpeg', Uint8Array, RegExp]> = [
      ['not an image', 'image/png', new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]), /not a readable image/],
      ['another type than claimed', 'image/png', jpegFile(1024, 256), /said to be PNG but is JPEG/],
      ['another size than asked', 'image/jpeg', jpegFile(1000, 250), /1000×250, not the 1024×256 asked for/],
      ['larger than the original', 'image/png', pngFile(3200, 800), /3200×800, larger than the original/],
      ['more bytes than the original', 'image/jpeg', padded, /more than the original's/],
    ];
    for (const [what, type, bytes, reason] of cases) {
      await assert.rejects(draft.downscale(session, chip.id, type, bytes), (error: Error) => {
        assert.ok(error instanceof DownscaleError, what);
        assert.match(error.message, reason, what);
        assert.match(error.message, /^The smaller copy of wide\.jpg was not used: .*The original \(3136×784\) stays attached\.$/, what);
        return true;
      });
      assert.deepEqual(draft.views(session), [chip], `${what}: the chip is as it was`);
    }
    const sent = await draft.takeForSend(session);
    assert.deepEqual([sent[0].images![0].width, sent[0].images![0].original], [3136, undefined]);
  });

  it('no smaller size is offered where it would cost the same, and asking for one says so', async () => {
    const { draft, session } = await setup();
    const square = await draft.add(session, { kind: 'image', mediaType: 'image/png', data: b64(pngFile(800, 600)) });
    assert.equal(square.smaller, undefined);
    assert.equal(draft.imageToDownscale(session, square.id), undefined);
    await assert.rejects(draft.downscale(session, square.id, 'image/png', pngFile(400, 300)), /no smaller size to send; nothing changed/);
  });

  it("the smaller size follows the model's formula: a patch-billed OpenAI model", async () => {
    // gpt-4.1-mini: 3136×784 is 98 × 25 = 2,450 patches; scaled by √(32² × 1536 / (3136 × 784)) = 0.7998, then
    // by 19 / 19.596 to a whole 19 patches high (38/49 in all): 2432×608, 76 × 19 = 1,444 patches × 1.62 =
    // 2,339.28. Fitted in 1,024: 1024×256, 32 × 8 = 256 patches × 1.62 = 414.72.
    const { chip } = await setup({ providerId: 'openai', model: 'gpt-4.1-mini' });
    assert.deepEqual([chip.smaller?.width, chip.smaller?.height], [1024, 256]);
    assert.ok(Math.abs(chip.smaller!.tokens - 415 - (chip.tokens! - 2340)) <= 2, `image tokens 2,340 and 415: ${chip.tokens} and ${chip.smaller!.tokens} with the caption`);
  });

  it('through the chat messages: Shrink sends the bytes to scale, a refused copy still redraws the chips and says why', async () => {
    const { draft, session, chip } = await setup();
    const toScale: ImageToDownscale[] = [];
    const composers: ChatAttachmentView[][] = [];
    const handlers = attachmentHandlers(() => ({
      draft, session: async () => ({ ...session, canSend: true }), postComposer: (s) => composers.push(draft.views(s)), postCompletions: () => undefined,
      postImageToDownscale: (request) => toScale.push(request), openText: async () => undefined, showRefused: () => undefined,
    }));
    await handlers.downscaleImage({ type: 'downscaleImage', id: chip.id });
    assert.deepEqual(toScale.map((r) => [r.id, r.width, r.height]), [[chip.id, 1024, 256]]);
    await assert.rejects(async () => handlers.downscaledImage({ type: 'downscaledImage', id: chip.id, mediaType: 'image/jpeg', data: b64(jpegFile(512, 128)) }), /512×128, not the 1024×256 asked for/);
    assert.deepEqual(composers, [[chip]], 'the chips are posted again, unchanged');
    await handlers.downscaledImage({ type: 'downscaledImage', id: chip.id, mediaType: 'image/jpeg', data: b64(jpegFile(1024, 256)) });
    assert.equal(composers.at(-1)![0].tokens, chip.smaller!.tokens);
  });

  it('the webview messages are checked where they arrive', () => {
    assert.deepEqual(parseChatMessage({ type: 'downscaleImage', id: 'att_1' }), { type: 'downscaleImage', id: 'att_1' });
    const good = parseChatMessage({ type: 'downscaledImage', id: 'att_1', mediaType: 'image/png', data: b64(pngFile(2, 2)) });
    assert.equal('error' in good, false);
    assert.match((parseChatMessage({ type: 'downscaledImage', id: 'att_1', mediaType: 'image/bmp', data: 'AAAA' }) as { error: string }).error, /"mediaType" must be image\/png/);
    assert.match((parseChatMessage({ type: 'downscaledImage', id: 'att_1', mediaType: 'image/png', data: 'not base64!' }) as { error: string }).error, /"data" is not base64/);
  });
});
