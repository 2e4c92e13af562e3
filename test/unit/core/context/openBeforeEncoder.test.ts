import { strict as assert } from 'assert';
import { createTokenCounter, type TokenCounter } from '../../../../src/core/accounting/tokenizer';
import type { Message } from '../../../../src/core/model/message';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { withSettings } from '../../../../src/core/settings';
import { storeFolderPerTest } from '../../node/store/fixtures/storeFolder';

/**
 * Reopening a session shows its figures from the counts stored with its messages: the window does
 * not wait for the encoder's rank table (tens to hundreds of milliseconds on a busy machine). A
 * message stored without a count (or counted in another encoding) still waits for it.
 */
const settings = withSettings({ contextWindow: 64_000, maxOutputTokens: 4_000 });
const FIXED = { system: 1_500, skills: 0, tools: 1_200 };

/** A counter whose ranks load only when `release` is called, and that refuses to count before. */
function gatedCounter(): TokenCounter & { release(): void; counted: number } {
  const real = createTokenCounter('o200k_base');
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let loaded = false;
  const counter = {
    encoding: real.encoding,
    counted: 0,
    release,
    load: () => gate.then(() => real.load()).then(() => void (loaded = true)),
    count(text: string) {
      if (!loaded) throw new Error('counted before the ranks loaded');
      counter.counted++;
      return real.count(text);
    },
    countAsync: (text: string) => Promise.resolve(counter.count(text)),
  };
  return counter;
}

let ids = 0;
const message = (role: 'user' | 'assistant', content: string): Message => ({ id: `m${++ids}`, role, kind: role, content, agentVisible: true, userVisible: true, createdAt: 0 });

describe('a session reopens without waiting for the encoder', function () {
  this.timeout(60_000);
  const stores = storeFolderPerTest('tally-open-before-encoder-');

  async function storedSession(folder: string) {
    const store = await stores.openStore(folder, { debounceMs: 1e9 });
    const { id } = await store.createSession({ title: 'stored counts' });
    const writer = await ContextSession.open({ store, sessionId: id, settings, counter: createTokenCounter('o200k_base'), fixed: FIXED });
    for (let i = 0; i < 20; i++) await writer.append(message(i % 2 ? 'assistant' : 'user', `Step ${i}: read src/parser.ts and run the tests again, line ${i * 7}.`));
    const shown = writer.measure(FIXED);
    await store.flush();
    return { store, id, shown };
  }

  it('opens with the figures it showed before while the ranks are still loading, plans the next request, and counts nothing', async () => {
    const { store, id, shown } = await storedSession(stores.folder());
    const counter = gatedCounter();
    const reopened = await ContextSession.open({ store, sessionId: id, settings, counter, fixed: FIXED }); // the ranks are never released before this
    const figures = reopened.measure(FIXED);
    assert.equal(figures.used, shown.used, 'the same figure as before the window closed');
    assert.deepEqual(figures.components, shown.components);
    const plan = reopened.planRequest(FIXED); // what the inspector shows as the next request
    assert.equal(plan.items.filter((item) => item.section === 'conversation').length, 21, 'twenty messages and their framing');
    assert.equal(plan.budget.used, shown.used);
    assert.equal(counter.counted, 0, 'nothing was counted: the stored counts gave every figure');
    counter.release();
    await counter.load();
    assert.equal(reopened.measure(FIXED).used, shown.used, 'the same figure once the encoder is ready');
  });

  it('does not read the ranks while a window opens the session for the chat, and reads them once when the chat asks after showing it', async () => {
    const { store, id, shown } = await storedSession(stores.folder());
    const real = createTokenCounter('o200k_base');
    let loads = 0;
    const counter: TokenCounter = { encoding: real.encoding, count: (text) => real.count(text), countAsync: (text) => real.countAsync(text), load: () => (loads++, real.load()) };
    const reopened = await ContextSession.open({ store, sessionId: id, settings, counter, fixed: FIXED, encoderAfterFirstState: true });
    assert.equal(reopened.measure(FIXED).used, shown.used, 'the figures come from the stored counts');
    assert.equal(loads, 0, 'the ranks were not read before the first state');
    reopened.loadEncoder(); // the chat has posted its first state
    assert.equal(loads, 1, 'the chat starts the ranks once');
  });

  it('still waits for the ranks it did not start when a stored message has no count', async () => {
    const folder = stores.folder();
    const { store, id } = await storedSession(folder);
    await store.putMessages(id, [{ ...message('user', 'A message an older version stored without its count.'), createdAt: (await store.loadTranscript(id)).at(-1)!.createdAt + 1 }]);
    const counter = gatedCounter();
    let opened = false;
    const opening = ContextSession.open({ store, sessionId: id, settings, counter, fixed: FIXED, encoderAfterFirstState: true }).then((session) => ((opened = true), session));
    await store.loadTranscript(id);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(opened, false, 'the session waits for the encoder to count that message');
    counter.release();
    await opening;
  });

  it('waits for the ranks when a stored message has no count', async () => {
    const folder = stores.folder();
    const { store, id, shown } = await storedSession(folder);
    await store.putMessages(id, [{ ...message('user', 'A message an older version stored without its count.'), createdAt: (await store.loadTranscript(id)).at(-1)!.createdAt + 1 }]);
    const counter = gatedCounter();
    let opened = false;
    const opening = ContextSession.open({ store, sessionId: id, settings, counter, fixed: FIXED }).then((session) => ((opened = true), session));
    await store.loadTranscript(id); // the open's own reads have had their turn
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(opened, false, 'the session waits for the encoder to count that message');
    counter.release();
    const session = await opening;
    assert.ok(session.measure(FIXED).used > shown.used, 'the message without a count is counted');
  });
});
