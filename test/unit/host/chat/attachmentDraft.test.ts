import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { messageCost } from '../../../../src/core/accounting/messageCost';
import { windowFigures } from '../../../../src/core/accounting/windowFigures';
import { AgentSession } from '../../../../src/core/agent/agentSession';
import { assistantMessage, toolResultMessage, userMessage } from '../../../../src/core/model/factories';
import type { AttachmentInfo } from '../../../../src/core/model/message';
import { createOpenAIProvider } from '../../../../src/core/providers/openai/openai';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { withSettings, type ContextSettings } from '../../../../src/core/settings';
import { documentName } from '../../../../src/views/documentAddress';
import { attachmentTitle, AttachmentDraft, type AttachmentSources, type DraftSession } from '../../../../src/host/chat/attachmentDraft';
import { attachmentsForSend, type AttachmentIntentDeps } from '../../../../src/host/chat/attachmentIntents';
import type { AttachTarget, ChatAttachmentView } from '../../../../src/protocol/attachments';
import { SessionPrompt } from '../../../../src/core/prompt/sessionPrompt';
import { FakeOpenAIServer } from '../../../fakes/openaiServer';
import { testRegistry } from '../../../support/toolRegistry';
import { tempStore } from '../../../support/tempStore';
import { following, openState } from '../../../support/sessionStates';

/** Files the fake workspace holds; a test deletes one to see what a send does then. */
class FakeSources implements AttachmentSources {
  readonly files = new Map<string, string | Uint8Array>();
  async read(target: AttachTarget): Promise<{ info: AttachmentInfo; content: string | Uint8Array }> {
    if (target.kind === 'file') {
      const content = this.files.get(target.path);
      if (content === undefined) throw new Error(`${target.path} no longer exists.`);
      return { info: { kind: 'file', label: target.path, path: target.path }, content };
    }
    if (target.kind === 'selection') return { info: { kind: 'selection', label: 'app.ts:2-3', path: 'src/app.ts', startLine: 2, endLine: 3 }, content: 'src/app.ts lines 2-3\nconst b = 2;\nconst c = 3;' };
    if (target.kind === 'problems') return { info: { kind: 'problems', label: 'Problems in app.ts', path: 'src/app.ts' }, content: '1 problem\nsrc/app.ts:2:7 error: Type number is not assignable to string (ts 2322)' };
    throw new Error('not in this fake');
  }
  async complete(): Promise<never[]> {
    return [];
  }
  async dropped(): Promise<AttachTarget> {
    throw new Error('not in this fake');
  }
}

const APP = 'export function app() {\n  const b = 2;\n  const c = 3;\n  return b + c;\n}\n';

describe('attachments: chips, their tokens and the request that carries them', function () {
  this.timeout(60_000);
  let server: FakeOpenAIServer;
  const disposers: Array<() => Promise<void>> = [];
  beforeEach(async () => (server = await new FakeOpenAIServer({ apiKey: 'sk-test' }).start()));
  afterEach(async () => {
    await server.close();
    for (const d of disposers.splice(0)) await d();
  });

  async function setup(settings: ContextSettings = withSettings({ contextWindow: 32_000, maxOutputTokens: 2_000 })) {
    const env = await tempStore();
    disposers.push(() => env.dispose());
    const sessionId = (await env.store.createSession({ title: 'attach' })).id;
    const counter = getTokenCounter();
    const contextSession = await ContextSession.open({ store: env.store, sessionId, settings, counter });
    const prompt = new SessionPrompt({ counter, settings, tools: () => [], instructions: async () => [], skills: async () => [] });
    const tools = testRegistry({ tools: () => prompt.tools() });
    const agent = new AgentSession({ contextSession, provider: createOpenAIProvider({ apiKey: 'sk-test', baseUrl: server.url, retry: { maxAttempts: 1 } }), model: 'm', maxOutputTokens: 2_000, prompt, tools, sleep: async () => undefined });
    const sources = new FakeSources();
    sources.files.set('src/app.ts', APP);
    const draft = new AttachmentDraft(sources);
    const session: DraftSession & { canSend: boolean } = {
      sessionId,
      settings,
      get messages() {
        return contextSession.messages;
      },
      count: contextSession.count,
      store: env.store,
      figures: () => windowFigures(contextSession.measure()),
      resultStored: (blob, toolName, args) => contextSession.resultStored(blob, toolName, args),
      canSend: true,
    };
    const posted: Array<{ views: ChatAttachmentView[]; restore?: string }> = [];
    const deps: AttachmentIntentDeps = {
      draft,
      session: async () => session,
      postComposer: (s, restore) => posted.push({ views: draft.views(s), restore }),
      postCompletions: () => undefined,
      postImageToDownscale: () => undefined,
      openText: async () => undefined,
      showRefused: () => undefined,
    };
    return { env, sessionId, contextSession, agent, sources, draft, session, deps, posted };
  }

  it('a send whose session cannot be read gives the text back to the message box and keeps the chips', async () => {
    const { draft, session, deps, posted } = await setup();
    await draft.add(session, { kind: 'file', path: 'src/app.ts' });
    const failing: AttachmentIntentDeps = { ...deps, session: async () => Promise.reject(new Error('This session could not be read: database disk image is malformed')) };
    await assert.rejects(attachmentsForSend(failing, 'what does this do?'), /could not be read/);
    assert.equal(posted[posted.length - 1]?.restore, 'what does this do?');
    assert.equal(draft.count, 1, 'the chip stays for the next send');
  });

  it("each chip's number is its attachment item's tokens in the request that carries it, and the items come right before the user's message", async () => {
    const { env, sessionId, agent, draft, session, deps } = await setup();
    const file = await draft.add(session, { kind: 'file', path: 'src/app.ts' });
    const selection = await draft.add(session, { kind: 'selection' });
    const problems = await draft.add(session, { kind: 'problems', path: 'src/app.ts' });
    for (const chip of [file, selection, problems]) assert.ok(chip.tokens && chip.tokens > 5, `${chip.label} has a count`);
    server.enqueue({ type: 'reply', parts: [{ text: 'It adds two numbers.' }] });
    const attachments = await attachmentsForSend(deps, 'what does this do?');
    assert.equal(await agent.send('what does this do?', undefined, attachments), 'end_turn');
    assert.equal(draft.count, 0, 'the chips leave with the message');
    await env.store.flush();
    const [usage] = await env.store.listRequestUsage(sessionId);
    const items = usage.items.filter((i) => i.section === 'conversation' && i.kind !== 'framing');
    const attached = items.filter((i) => i.kind === 'attachment');
    assert.deepEqual(attached.map((i) => [i.label, i.tokens]), [
      ['Attached: src/app.ts', file.tokens],
      ['Attached: app.ts:2-3', selection.tokens],
      ['Attached: Problems in app.ts', problems.tokens],
    ]);
    const user = items.findIndex((i) => i.kind === 'user');
    assert.ok(items.findIndex((i) => i.kind === 'attachment') < user && items.filter((i, at) => i.kind === 'attachment' && at > user).length === 0, 'attachments come before the message');
    // The body the server took (it checks the wire format) carries the file's text as user content before the question.
    const messages = server.requests[0].body.messages as Array<{ role: string; content: string }>;
    const fileAt = messages.findIndex((m) => m.role === 'user' && m.content.includes('export function app()'));
    const questionAt = messages.findIndex((m) => m.role === 'user' && m.content === 'what does this do?');
    assert.ok(fileAt >= 0 && fileAt < questionAt, 'the file is sent as user content before the question');
    // Sent messages keep what was attached (the chat's chips on the sent message read it).
    const stored = await env.store.loadTranscript(sessionId);
    assert.deepEqual(stored.filter((m) => m.kind === 'attachment').map((m) => m.meta?.attachment?.label), ['src/app.ts', 'app.ts:2-3', 'Problems in app.ts']);
  });

  it('a large file is stored whole and a preview sent: the chip says so, the item is marked offloaded, and the whole text stays readable', async () => {
    const settings = withSettings({ contextWindow: 32_000, maxOutputTokens: 2_000 });
    const { env, sessionId, agent, draft, session, sources, deps } = await setup({ ...settings, offloadThresholdBytes: 4_000, offloadPreviewBytes: 1_000, truncation: { maxLines: 400, maxBytes: 8_000 } });
    const big = Array.from({ length: 2_000 }, (_, i) => `line ${i + 1} of the log`).join('\n');
    sources.files.set('logs/build.log', big);
    const chip = await draft.add(session, { kind: 'file', path: 'logs/build.log' });
    assert.equal(chip.stored?.lines, 2_000);
    assert.ok(chip.stored && chip.stored.sentLines > 0 && chip.stored.sentLines < 2_000, `sent ${chip.stored?.sentLines} lines`);
    assert.ok(chip.tokens! < 1_000, 'only the preview is counted');
    server.enqueue({ type: 'reply', parts: [{ text: 'ok' }] });
    await agent.send('why did it fail?', undefined, await attachmentsForSend(deps, 'why did it fail?'));
    await env.store.flush();
    const [usage] = await env.store.listRequestUsage(sessionId);
    const item = usage.items.find((i) => i.kind === 'attachment')!;
    assert.equal(item.tokens, chip.tokens);
    assert.ok(item.badges.includes('offloaded'));
    const message = (await env.store.loadTranscript(sessionId)).find((m) => m.kind === 'attachment')!;
    const slice = await env.store.readBlob(sessionId, message.meta!.offloadRef!, 0, 10_000_000);
    assert.equal(new TextDecoder().decode(slice.bytes), big);
    assert.equal((await env.store.listBlobs(sessionId)).length, 1, 'read again at send, unchanged: stored once, the counted message sent');
  });

  it('a large attachment is in the inspector\'s stored results as soon as it is attached, as a reopened session lists it', async () => {
    const settings = withSettings({ contextWindow: 32_000, maxOutputTokens: 2_000 });
    const { env, sessionId, contextSession, draft, session, sources } = await setup({ ...settings, offloadThresholdBytes: 4_000, offloadPreviewBytes: 1_000, truncation: { maxLines: 400, maxBytes: 8_000 } });
    const view = await openState(env.store, sessionId, 200);
    following(view, contextSession);
    assert.equal(view.records.blobs.length, 0);
    sources.files.set('logs/build.log', Array.from({ length: 2_000 }, (_, i) => `line ${i + 1}`).join('\n'));
    const chip = await draft.add(session, { kind: 'file', path: 'logs/build.log' });
    assert.ok(chip.stored, 'stored whole');
    const [stored] = await env.store.listBlobs(sessionId);
    assert.deepEqual(view.records.blobs.map((b) => b.id), [stored.id], 'the stored result is listed at once, before the message is sent');
    const listed = view.records.blobs[0];
    assert.equal(listed.lineCount, chip.stored.lines, 'the list and the chip say the same line count');
    assert.equal(view.records.blobTitles.get(listed.id), 'attachment logs/build.log · request #0', 'named for the request that will carry it (the session’s first)');
    const reopened = await openState(env.store, sessionId, 200);
    assert.deepEqual(reopened.records.blobs.map((b) => [b.id, b.lineCount]), view.records.blobs.map((b) => [b.id, b.lineCount]), 'the same list a reopened session shows');
  });

  it('a file a tool result would offload but within the truncation limit is sent whole: the user chose it for the model to read', async () => {
    const { draft, session, sources } = await setup();
    const text = 'export const x = 1;\n'.repeat(600); // 12 KB: past the 4 KB offload threshold, under the 32 KB limit
    sources.files.set('src/long.ts', text);
    const chip = await draft.add(session, { kind: 'file', path: 'src/long.ts' });
    assert.equal(chip.stored, undefined);
    assert.equal(draft.textOf(chip.id)!.text, `[Attached file src/long.ts]\n${text}`);
  });

  it('a file changed between attaching and sending is sent as it is at send', async () => {
    const { draft, session, sources } = await setup();
    await draft.add(session, { kind: 'file', path: 'src/app.ts' });
    sources.files.set('src/app.ts', 'export const changed = true;\n');
    const [message] = await draft.takeForSend(session);
    assert.equal(message.content, '[Attached file src/app.ts]\nexport const changed = true;\n');
  });

  it('a binary file is refused on its chip, and a send with it keeps the message and the chips', async () => {
    const { draft, session, sources, deps, posted } = await setup();
    sources.files.set('image.png', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 1, 2, 3]));
    const chip = await draft.add(session, { kind: 'file', path: 'image.png' });
    assert.match(chip.error ?? '', /image\.png is a binary file \(11 bytes\); only text can be attached/);
    assert.equal(chip.tokens, undefined);
    await assert.rejects(attachmentsForSend(deps, 'look at this'), /Not sent: image\.png: image\.png is a binary file.*your message is kept/);
    assert.equal(draft.count, 1, 'the chip stays');
    assert.equal(posted[posted.length - 1].restore, 'look at this', 'the text goes back in the input');
  });

  it('a file deleted before the send: a clear error, the message and the chip are kept', async () => {
    const { contextSession, draft, session, sources, deps, posted } = await setup();
    await draft.add(session, { kind: 'file', path: 'src/app.ts' });
    sources.files.delete('src/app.ts');
    await assert.rejects(attachmentsForSend(deps, 'refactor it'), /Not sent: src\/app\.ts: src\/app\.ts no longer exists\..*your message is kept/);
    const last = posted[posted.length - 1];
    assert.equal(last.restore, 'refactor it');
    assert.match(last.views[0].error ?? '', /no longer exists/);
    assert.equal(contextSession.messages.length, 0, 'nothing was recorded');
  });

  it('a file the agent read whole and still has in context is marked and sent as a short pointer, not twice', async () => {
    const { contextSession, draft, session } = await setup();
    const read = assistantMessage('', [{ id: 'c1', name: 'read_file', arguments: '{"path":"./src/app.ts"}' }]);
    await contextSession.append(userMessage('look at app'), read, toolResultMessage({ id: 'c1', name: 'read_file' }, `src/app.ts (lines 1–5 of 5)\n${APP}`));
    const chip = await draft.add(session, { kind: 'file', path: 'src/app.ts' });
    assert.equal(chip.inContext, true);
    const [message] = await draft.takeForSend(session);
    assert.match(message.content, /already in this conversation/);
    assert.ok(!message.content.includes('export function app()'));
    assert.equal(chip.tokens, contextSession.count(message) - 4);
  });

  it("the cost line is the message's tokens on the meter's figures, and says when a compaction will run first", async () => {
    const { contextSession, draft, session } = await setup(withSettings({ contextWindow: 3_000, maxOutputTokens: 500 }));
    const chip = await draft.add(session, { kind: 'file', path: 'src/app.ts' });
    draft.setDraftText('explain');
    const figures = windowFigures(contextSession.measure());
    const text = contextSession.count(userMessage('explain')) - 4;
    const expected = messageCost(figures, [chip.tokens!, text]);
    const cost = draft.cost(session)!;
    assert.equal(cost.text, expected.text);
    assert.equal(cost.tokens, chip.tokens! + text + 8);
    assert.match(cost.text, /^next request [\d,]+ tokens \(this message [\d,]+\) → [\d.]+% of the window$/);
    assert.equal(cost.requestTokens, figures.used + cost.tokens, 'the request: the context now and the message');
    assert.equal(cost.note, undefined);
    // Past the compaction threshold: the line says a compaction will run first.
    draft.setDraftText('word '.repeat(2_500));
    assert.equal(draft.cost(session)!.note, 'a compaction will run first');
  });

  it("a chip's tab title names the file first and its folders after it, with no percent-encoded slash", async () => {
    const { draft, session } = await setup();
    const chip = await draft.add(session, { kind: 'file', path: 'src/app.ts' });
    const title = draft.textOf(chip.id)!.title;
    assert.equal(title, 'app.ts (src, sent with your message)');
    assert.equal(documentName(title, 'txt'), 'app.ts (src, sent with your message).txt');
    assert.equal(attachmentTitle('a/b/c.md'), 'c.md (a › b, sent with your message)');
  });

  it('/compact sends no message: the cost line says so instead of costing its text', async () => {
    const { draft, session } = await setup();
    draft.setDraftText('/compact keep the API notes');
    const cost = draft.cost(session)!;
    assert.equal(cost.text, '/compact: compacts the context now; no message is sent');
    assert.equal(cost.requestTokens, undefined);
  });
});
