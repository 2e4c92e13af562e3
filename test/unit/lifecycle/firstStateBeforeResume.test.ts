/**
 * Opening a long session that never compacted: the chat posts its first state (the newest page of
 * messages, a meter that says it is counting) before the session's whole transcript is read, and
 * the meter's figures once it resumed are those of an open that resumes first. The session
 * controller and the chat view run as in VS Code, with `vscode` the bench's stand-in
 * (bench/realPath/vscodeStub.ts), on a real sql.js store on disk whose whole-transcript read is
 * held until the test lets it go. Counted, never timed: the state must arrive while the read is held.
 */
import { strict as assert } from 'assert';
import Module from 'module';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';
import { formatShare } from '../../../src/core/accounting/windowFigures';
import type { Message } from '../../../src/core/model/message';
import type { RequestUsageRecord } from '../../../src/core/model/records';
import type { SessionStore } from '../../../src/core/ports/sessionStore';
import type { ChatState } from '../../../src/protocol/chat';
import { withStoredCounts, sessionMessages } from '../../../bench/realPath/seedSession';
import { FakeWebview, FakeWebviewView, type RecordedPost } from '../../../bench/realPath/fakeWebview';
import { Uri } from '../../../bench/realPath/vscodeClasses';
import { createVscodeStub, secretStorage, type StubWorld } from '../../../bench/realPath/vscodeStub';
import { storeFolderPerTest } from '../node/store/fixtures/storeFolder';

const REPOSITORY = resolve(__dirname, '..', '..', '..');
const MESSAGES = 1_500;
const SETTINGS = { provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', model: 'bench-model', contextWindow: 200_000, maxOutputTokens: 8_192 };

/**
 * Forgets the loaded modules of the VS Code layer (those outside core, node, protocol and host), so
 * they bind this test's `vscode` (another test may have loaded one with its own) and no later test binds it.
 */
function forgetVscodeLayer(): void {
  const source = join(REPOSITORY, 'src') + '/';
  const vscodeFree = ['core', 'node', 'protocol', 'host'].map((dir) => `${source}${dir}/`);
  for (const path of Object.keys(require.cache)) if (path.startsWith(source) && !vscodeFree.some((dir) => path.startsWith(dir))) delete require.cache[path];
}

type Controller = import('../../../src/lifecycle/sessionController').SessionController;
type Actions = import('../../../src/host/sessionState/sessionActions').SessionActions;

/** The store with its whole-transcript reads (`loadTranscript` without `createdAfter`) held until `release`, and counted. */
function holdingWholeReads(store: SessionStore, fail?: Error) {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const reads = { started: 0, done: 0 };
  const wrapped = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== 'loadTranscript') return typeof value === 'function' ? value.bind(target) : value;
      return async (sessionId: string, options?: { createdAfter?: number }) => {
        if (options?.createdAfter !== undefined) return target.loadTranscript(sessionId, options);
        reads.started++;
        await held;
        if (fail) throw fail;
        const messages = await target.loadTranscript(sessionId);
        reads.done++;
        return messages;
      };
    },
  });
  return { store: wrapped, reads, release };
}

function usage(sessionId: string, index: number, createdAt: number): RequestUsageRecord {
  return {
    id: `${sessionId}-u${index}`, sessionId, requestIndex: index, createdAt, model: 'bench-model', contextWindow: 200_000, maxOutputTokens: 8_192,
    components: { system: 900, skills: 0, tools: 1_400, messages: 40_000, toolResults: 9_000, summaries: 0 },
    estimatedInputTokens: 51_300, reportedInputTokens: 52_044, reportedOutputTokens: 310, items: [],
  };
}

const stateOf = (post: RecordedPost) => (post.message as { state?: ChatState }).state;

describe('a long session that never compacted shows before it resumes', function () {
  this.timeout(120_000);
  const stores = storeFolderPerTest('tally-first-state-');
  let world: StubWorld;
  let restoreLoader: () => void;
  let workspace: string;
  let load: () => { SessionController: typeof import('../../../src/lifecycle/sessionController').SessionController; SessionActions: typeof import('../../../src/host/sessionState/sessionActions').SessionActions; ChatViewProvider: typeof import('../../../src/views/chatViewProvider').ChatViewProvider; ApiKeys: typeof import('../../../src/secrets/apiKeys').ApiKeys; readConfiguration: typeof import('../../../src/config/readSettings').readConfiguration; ContextMeter: typeof import('../../../src/views/contextMeter').ContextMeter };

  before(() => {
    forgetVscodeLayer();
    workspace = mkdtempSync(join(tmpdir(), 'tally-first-state-ws-'));
    world = createVscodeStub({ extensionRoot: REPOSITORY, workspace: [workspace], settings: SETTINGS });
    const loader = Module as unknown as { _load(request: string, parent: unknown, isMain: boolean): unknown };
    const original = loader._load;
    loader._load = function (request, parent, isMain) {
      return request === 'vscode' ? world.vscode : original.call(this, request, parent, isMain);
    };
    restoreLoader = () => (loader._load = original);
    /* eslint-disable @typescript-eslint/no-require-imports */
    load = () => ({
      SessionController: require('../../../src/lifecycle/sessionController').SessionController,
      SessionActions: require('../../../src/host/sessionState/sessionActions').SessionActions,
      ChatViewProvider: require('../../../src/views/chatViewProvider').ChatViewProvider,
      ApiKeys: require('../../../src/secrets/apiKeys').ApiKeys,
      readConfiguration: require('../../../src/config/readSettings').readConfiguration,
      ContextMeter: require('../../../src/views/contextMeter').ContextMeter,
    });
    /* eslint-enable @typescript-eslint/no-require-imports */
  });
  after(() => {
    restoreLoader();
    forgetVscodeLayer();
    rmSync(workspace, { recursive: true, force: true });
  });

  /** A store on disk with a long session (no compaction) and a short one, each with a last request. */
  async function seeded(): Promise<{ folder: string; long: string; short: string; newest: Message }> {
    const folder = stores.folder();
    const writing = await stores.openStore(folder, { debounceMs: 1e9, segmentMaxBytes: 128 * 1024 });
    const long = (await writing.createSession({ title: 'long, never compacted', origin: 'chat' })).id;
    const messages = withStoredCounts(sessionMessages(MESSAGES, 1_000_000));
    for (let at = 0; at < messages.length; at += 250) {
      await writing.putMessages(long, messages.slice(at, at + 250));
      await writing.flush();
    }
    await writing.addRequestUsage(usage(long, 0, 1_000_000 + MESSAGES));
    const short = (await writing.createSession({ title: 'short', origin: 'chat' })).id;
    await writing.putMessages(short, withStoredCounts(sessionMessages(20, 3_000_000)));
    await writing.addRequestUsage({ ...usage(short, 0, 3_000_100), reportedInputTokens: 1_234 });
    // The long one is the latest: the chat opens it.
    await writing.updateSession(short, { updatedAt: Date.UTC(2026, 0, 1) });
    await writing.updateSession(long, { updatedAt: Date.UTC(2026, 0, 2) });
    await writing.close();
    return { folder, long, short, newest: messages[messages.length - 1] };
  }

  async function openChat(store: SessionStore, folder: string) {
    const { SessionController, SessionActions, ChatViewProvider, ApiKeys } = load();
    const sent: Array<{ text: string; wholeReadsDone: number }> = [];
    const reads = { wholeDone: () => 0 };
    const agents = {
      create: async () => ({ busy: false, on: () => () => undefined, dispose() {}, cancel() {}, send: async (text: string) => void sent.push({ text, wholeReadsDone: reads.wholeDone() }) }),
      resolveApproval() {},
    };
    const log = (world.vscode.window as { createOutputChannel(name: string): never }).createOutputChannel('Tally');
    const lifecycle: Controller = new SessionController({ get: async () => store, folder }, new ApiKeys(secretStorage() as never), agents as never, log);
    const actions: Actions = new SessionActions(lifecycle, agents, log);
    const chat = new ChatViewProvider(Uri.file(REPOSITORY) as never, lifecycle, actions, log);
    const webview = new FakeWebview();
    chat.resolveWebviewView(new FakeWebviewView('tally.chat', webview) as never);
    void webview.send({ type: 'ready' });
    const dispose = () => {
      chat.dispose();
      actions.dispose();
      lifecycle.dispose();
    };
    return { sessions: actions, lifecycle, dispose, chat, webview, sent, reads };
  }

  it('posts the newest page with a "counting" meter while the whole transcript is held, then the same figures as an open that resumes first', async () => {
    const { folder, long, newest } = await seeded();
    const { store, reads, release } = holdingWholeReads(await stores.openStore(folder, { debounceMs: 1e9 }));
    const { sessions, lifecycle, dispose, webview, sent, reads: counted } = await openChat(store, folder);
    counted.wholeDone = () => reads.done;
    const statusBar = new (load().ContextMeter)(lifecycle);
    try {
      const first = await webview.waitForPost('the chat\'s first state (the whole transcript is still held)', (p) => p.message.type === 'state', { timeoutMs: 30_000 });
      assert.equal(reads.done, 0, 'the whole transcript was not read before the chat showed the session');
      const state = stateOf(first)!;
      assert.equal(state.sessionId, long);
      assert.equal(state.earlierUnloaded, true, 'the newest page, older messages left to "Show earlier"');
      const texts = state.entries.map((e) => ('text' in e ? e.text : ''));
      assert.ok(texts.includes(newest.content), 'the newest message shows');
      assert.ok(state.entries.length > 50 && state.entries.length < 200, `a page of entries (${state.entries.length}), not the whole session`);
      assert.equal(state.meter, undefined, 'no figure that the count would change');
      assert.ok(state.counting, 'the meter says it is counting');
      assert.match(state.counting.text.lastAndNow, /counting…/);
      assert.equal(state.counting.lastRequest?.tokens, 52_044, 'the last request\'s stored figure');
      assert.equal(state.model?.id, 'bench-model');
      assert.equal(sessions.active, undefined, 'not resumed yet');
      statusBar.update();
      assert.equal(statusBar.shown.text, '$(graph) counting…', 'the status bar shows no share either');

      // A message sent now shows as not sent yet, and goes to the agent once the whole transcript was read.
      const sending = webview.send({ type: 'send', text: 'Continue with the next module.' });
      const waiting = await webview.waitForPost('the message shown as not sent yet', (p) => stateOf(p)?.sessionId === long && Boolean((p.message as { patch?: { upserts?: Array<{ pending?: boolean; text?: string }> } }).patch?.upserts?.some((e) => e.pending && e.text === 'Continue with the next module.')), { timeoutMs: 30_000 });
      assert.ok(waiting);
      assert.equal(reads.done, 0, 'still held');
      release();
      await sending;
      assert.deepEqual(sent, [{ text: 'Continue with the next module.', wholeReadsDone: 1 }]);
      assert.deepEqual(sessions.shown?.state.unsentMessages.waiting, []);

      const counted = await webview.waitForPost('the chat\'s meter with figures', (p) => stateOf(p)?.meter !== undefined, { timeoutMs: 30_000 });
      const meter = stateOf(counted)!.meter!;
      assert.equal(stateOf(counted)!.counting, undefined);
      assert.equal(meter.lastRequest?.tokens, state.counting.lastRequest?.tokens, 'the last request: one number, before and after');
      assert.equal(meter.text.lastRequest, state.counting.text.lastRequest);
      statusBar.update();
      assert.equal(statusBar.shown.text, `$(graph) ${formatShare(meter.usedShare)}`, 'the status bar and the chat: one share');

      // What an open that resumes before it shows (the old order) computes for the same session.
      const expected = await resumedFirstMeter(await stores.openStore(folder, { debounceMs: 1e9 }), long);
      assert.deepEqual(JSON.parse(JSON.stringify(meter)), JSON.parse(JSON.stringify(expected)), 'the figures of an open that resumes before it shows');
      assert.equal(reads.started, 1, 'the whole transcript read once');
    } finally {
      release();
      statusBar.dispose();
      dispose();
    }
  });

  it('a session picked while another resumes replaces it, and the first one\'s late resume does not come back', async () => {
    const { folder, long, short } = await seeded();
    const { store, release } = holdingWholeReads(await stores.openStore(folder, { debounceMs: 1e9 }));
    const { sessions, dispose, webview } = await openChat(store, folder);
    try {
      await webview.waitForPost('the long session shown', (p) => p.message.type === 'state' && stateOf(p)?.sessionId === long, { timeoutMs: 30_000 });
      const picking = webview.send({ type: 'resumeSession', sessionId: short });
      release();
      await picking;
      assert.equal(sessions.active?.info.id, short);
      assert.equal(sessions.shown?.info.id, short);
      const last = await webview.waitForPost('the short session\'s counted state', (p) => stateOf(p)?.sessionId === short && stateOf(p)?.meter !== undefined, { timeoutMs: 30_000 });
      assert.equal(stateOf(last)!.meter!.lastRequest?.tokens, 1_234);
      // Every later post is the short session's.
      const after = webview.posts.filter((p) => p.at >= last.at && stateOf(p));
      assert.deepEqual([...new Set(after.map((p) => stateOf(p)!.sessionId))], [short]);
      assert.equal((await sessions.current()).info.id, short);
    } finally {
      release();
      dispose();
    }
  });

  it('a resume that fails shows the error in the chat, with the session\'s messages, and no counting meter', async () => {
    const { folder, long } = await seeded();
    const { store, release } = holdingWholeReads(await stores.openStore(folder, { debounceMs: 1e9 }), new Error('database disk image is malformed'));
    const { sessions, dispose, webview } = await openChat(store, folder);
    try {
      await webview.waitForPost('the long session shown', (p) => p.message.type === 'state' && stateOf(p)?.sessionId === long, { timeoutMs: 30_000 });
      const sending = webview.send({ type: 'send', text: 'Keep going.' });
      release();
      await sending;
      assert.ok(world.shown.some((m) => m.level === 'error' && /The message was not sent: database disk image is malformed/.test(m.message)), 'the message sent meanwhile says why it was not sent');
      const failed = await webview.waitForPost('the error in the chat', (p) => Boolean(stateOf(p)?.banner), { timeoutMs: 30_000 });
      const state = stateOf(failed)!;
      assert.equal(state.banner, 'This session could not be read: database disk image is malformed');
      assert.equal(state.counting, undefined);
      assert.equal(state.meter, undefined);
      await assert.rejects(sessions.current(), /malformed/, 'what needs the session says why it cannot continue');
      await webview.send({ type: 'send', text: 'hello' });
      assert.ok(world.shown.some((m) => m.level === 'error' && /not sent: database disk image is malformed/.test(m.message)), JSON.stringify(world.shown));
      assert.deepEqual(sessions.shown?.state.unsentMessages.waiting, [], 'no message left "not sent yet"');
    } finally {
      dispose();
    }
  });

  it('a message whose session is opened again while it is being sent goes back to the message box, not to the agent of the session it left', async () => {
    const { folder, long, short } = await seeded();
    const { store: held, release } = holdingWholeReads(await stores.openStore(folder, { debounceMs: 1e9 }));
    release();
    let letWrite!: () => void;
    const writing = new Promise<void>((r) => (letWrite = r));
    const store = new Proxy(held, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (property !== 'updateSession') return typeof value === 'function' ? value.bind(target) : value;
        return async (...args: Parameters<SessionStore['updateSession']>) => {
          await writing;
          return target.updateSession(...args);
        };
      },
    });
    const { sessions, dispose, sent } = await openChat(store, folder);
    try {
      assert.equal((await sessions.current()).info.id, long);
      const sending = sessions.send('Run the tests again.');
      await sessions.open(short); // the session the message was written to is detached meanwhile
      letWrite();
      await assert.rejects(sending, (error: Error & { text?: string }) => error.text === 'Run the tests again.' && /not sent/.test(error.message));
      assert.deepEqual(sent, [], 'nothing went to the agent of the session the chat no longer shows');
      assert.equal(sessions.active?.info.id, short);
    } finally {
      letWrite();
      dispose();
    }
  });

  /** The meter of the old order: the context resumed, then the chat's meter from it and the stored usage. */
  async function resumedFirstMeter(store: SessionStore, sessionId: string) {
    const { readConfiguration } = load();
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { ContextSession } = require('../../../src/core/context/contextSession') as typeof import('../../../src/core/context/contextSession');
    const { readLastRequest } = require('../../../src/core/context/lastRequestUsage') as typeof import('../../../src/core/context/lastRequestUsage');
    const { getTokenCounter } = require('../../../src/core/accounting/tokenizer') as typeof import('../../../src/core/accounting/tokenizer');
    const { chatMeter } = require('../../../src/host/figures/turnFigures') as typeof import('../../../src/host/figures/turnFigures');
    /* eslint-enable @typescript-eslint/no-require-imports */
    const config = readConfiguration();
    const lastRequest = readLastRequest(store, sessionId);
    const last = (await lastRequest).record!;
    const session = await ContextSession.open({
      store, sessionId, settings: config.context, counter: getTokenCounter('o200k_base'), contextWindow: 200_000, maxOutputTokens: 8_192,
      fixed: { system: last.components.system, skills: last.components.skills, tools: last.components.tools }, lastRequest,
    });
    const figures = chatMeter(session, true, (await store.listRequestUsage(sessionId, { items: false })).at(-1));
    return figures;
  }
});
