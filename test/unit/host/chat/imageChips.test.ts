/**
 * Images in the chat's draft: an image file attached with # or Add File, and an image pasted into the
 * composer, become chips whose tokens the host counts (the image by the session's provider formula,
 * plus its caption) and that the request then carries as the same number; what the webview sends
 * is checked where it arrives.
 */
import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { ContextSession } from '../../../../src/core/context/contextSession';
import type { AttachmentInfo } from '../../../../src/core/model/message';
import { withSettings } from '../../../../src/core/settings';
import { AttachmentDraft, type AttachmentSources, type DraftSession } from '../../../../src/host/chat/attachmentDraft';
import type { AttachTarget } from '../../../../src/protocol/attachments';
import { parseChatMessage } from '../../../../src/protocol/validate';
import { jpegFile, pngFile } from '../../../support/imageFiles';
import { tempStore } from '../../../support/tempStore';
import { userMessage } from '../../../../src/core/model/factories';

class ImageSources implements AttachmentSources {
  readonly files = new Map<string, Uint8Array>();
  async read(target: AttachTarget): Promise<{ info: AttachmentInfo; content: Uint8Array }> {
    if (target.kind !== 'file' || !this.files.has(target.path)) throw new Error('not in this fake');
    return { info: { kind: 'file', label: target.path, path: target.path }, content: this.files.get(target.path)! };
  }
  async complete(): Promise<never[]> {
    return [];
  }
  async dropped(): Promise<AttachTarget> {
    throw new Error('not in this fake');
  }
}

describe('image chips in the chat', function () {
  this.timeout(60_000);
  const disposers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const d of disposers.splice(0)) await d();
  });

  async function setup() {
    const env = await tempStore();
    disposers.push(() => env.dispose());
    const settings = withSettings({ contextWindow: 32_000, maxOutputTokens: 2_000 });
    const sessionId = (await env.store.createSession({ title: 'images' })).id;
    const contextSession = await ContextSession.open({ store: env.store, sessionId, settings, counter: getTokenCounter() });
    const sources = new ImageSources();
    const draft = new AttachmentDraft(sources);
    const session: DraftSession = { sessionId, settings, messages: contextSession.messages, count: contextSession.count, store: env.store, figures: () => undefined, imageBilling: { providerId: 'anthropic' } };
    return { draft, session, sources, contextSession };
  }

  it('an image file attached with # shows its size and cost, and the request carries the same cost as an image item', async () => {
    const { draft, session, sources, contextSession } = await setup();
    sources.files.set('docs/shot.png', pngFile(900, 600));
    const chip = await draft.add(session, { kind: 'file', path: 'docs/shot.png' });
    assert.equal(chip.label, 'shot.png · PNG 900×600');
    assert.equal(chip.kind, 'image');
    assert.ok(chip.tokens! >= 720 && chip.tokens! < 760, `900×600 / 750 = 720, and the caption: ${chip.tokens}`);
    const sent = await draft.takeForSend(session);
    assert.deepEqual(sent[0].images?.map((i) => [i.origin, i.path, i.tokens]), [['file', 'docs/shot.png', 720]]);
    await contextSession.append(...sent, userMessage('what is wrong?'));
    const request = await contextSession.nextRequest({ fixed: { system: 0, skills: 0, tools: 0 } });
    assert.equal(request.plan.items.find((i) => i.kind === 'image')?.tokens, chip.tokens, 'the chip and the request say the same');
  });

  it('a pasted image is a chip too; a damaged one says why and is not sent', async () => {
    const { draft, session } = await setup();
    const jpeg = Buffer.from(jpegFile(1200, 800)).toString('base64');
    const chip = await draft.add(session, { kind: 'image', mediaType: 'image/jpeg', data: jpeg });
    assert.equal(chip.label, 'pasted image · JPEG 1200×800');
    assert.ok(chip.tokens! > 1280, 'billed at 1200×800 / 750');
    const cut = Buffer.from(pngFile(50, 50).subarray(0, 16)).toString('base64');
    const bad = await draft.add(session, { kind: 'image', mediaType: 'image/png', data: cut, name: 'clip.png' });
    assert.equal(bad.error, 'the PNG image is cut short (16 bytes; its header needs 24)');
    await assert.rejects(draft.takeForSend(session), /Not sent: clip\.png: the PNG image is cut short/);
  });

  it('what the webview sends is checked where it arrives: the media type, the size cap, base64', () => {
    const attach = (target: Record<string, unknown>) => parseChatMessage({ type: 'attach', target });
    const good = attach({ kind: 'image', mediaType: 'image/png', data: Buffer.from(pngFile(2, 2)).toString('base64'), name: 'a.png' });
    assert.equal('error' in good, false, JSON.stringify(good));
    const problems = [
      attach({ kind: 'image', mediaType: 'image/svg+xml', data: 'PHN2Zz4=' }),
      attach({ kind: 'image', mediaType: 'image/png', data: 'A'.repeat(7_000_000) }),
      attach({ kind: 'image', mediaType: 'image/png', data: 'not base64!' }),
      attach({ kind: 'image', mediaType: 'image/png', data: 'AAAA', name: 'x'.repeat(300) }),
      attach({ kind: 'image', mediaType: 'image/png', data: 'AAAA', path: '/etc/passwd' }),
    ].map((r) => ('error' in r ? String(r.error) : 'accepted'));
    assert.deepEqual(problems.map((p) => p.replace(/^.*?"target/, '"target')), [
      '"target.mediaType" must be image/png, image/jpeg, image/gif or image/webp',
      '"target.data": the image is over 5 MB',
      '"target.data" is not base64',
      problems[3].replace(/^.*?"target/, '"target'),
      problems[4].replace(/^.*?"target/, '"target'),
    ]);
    assert.match(problems[3], /name/);
    assert.match(problems[4], /path/);
  });
});
