/**
 * Opening a request in the inspector: the host reads it and the request before it from a real
 * sql.js store (item lists stored as changes of each other) and sends why it missed the cache.
 */
import { strict as assert } from 'assert';
import type { ContextBudget } from '../../../../src/core/accounting/budget';
import type { RequestItem } from '../../../../src/core/model/records';
import type { SessionStore } from '../../../../src/core/ports/sessionStore';
import { RequestLedger } from '../../../../src/core/context/requestLedger';
import { inspectorHandlers } from '../../../../src/host/inspector/inspectorIntents';
import type { HostToInspector } from '../../../../src/protocol/inspector';
import { receiveWebviewMessage } from '../../../../src/protocol/receive';
import { parseInspectorMessage } from '../../../../src/protocol/validate';
import { storeFolderPerTest } from '../../node/store/fixtures/storeFolder';

const system: RequestItem = { messageId: 'system:base', role: 'system', kind: 'system-section', tokens: 2_000, badges: [], preview: 'You are Tally.', section: 'system', textHash: 'base-1' };
const agents = (hash: string): RequestItem => ({ messageId: 'agents:AGENTS.md', role: 'system', kind: 'agents-md', tokens: 1_000, badges: [], preview: 'Use pnpm.', section: 'system', path: 'AGENTS.md', textHash: hash });
const message = (id: string, tokens: number): RequestItem => ({ messageId: id, role: 'user', kind: 'user', tokens, badges: [], preview: id, section: 'conversation' });

describe('inspector: opening a request says why it missed the cache', function () {
  this.timeout(60_000);
  const stores = storeFolderPerTest('tally-host-cache-miss-');
  let store: SessionStore;
  let sessionId: string;
  const posted: HostToInspector[] = [];

  async function open(requestIndex: number): Promise<Extract<HostToInspector, { type: 'requestItems' }>> {
    posted.length = 0;
    const sessions = { current: async () => ({ info: { id: sessionId } }), store: async () => store } as never;
    const handlers = inspectorHandlers({ sessions, post: (m) => void posted.push(m), sendState: async () => undefined, showEarlier: async () => undefined, executeCommand: async () => undefined, showInformation: () => undefined });
    await receiveWebviewMessage({ type: 'selectRequest', requestIndex }, { source: 'inspector', parse: parseInspectorMessage, log: { warn: () => undefined }, handlers, onError: (e: unknown) => assert.fail(String(e)) });
    assert.equal(posted.length, 1);
    return posted[0] as Extract<HostToInspector, { type: 'requestItems' }>;
  }

  beforeEach(async () => {
    store = await stores.openStore(stores.folder(), { debounceMs: 5 });
    sessionId = (await store.createSession({ title: 'cache' })).id;
    const ledger = new RequestLedger(store, sessionId, 0, () => 1_000);
    const send = (items: RequestItem[], cacheReadTokens: number) => {
      const total = items.reduce((sum, item) => sum + item.tokens, 0);
      const budget = { contextWindow: 200_000, maxOutputTokens: 16_000, components: { system: 3_000, skills: 0, tools: 0, messages: total - 3_000, toolResults: 0, summaries: 0 }, estimatedTotal: total } as unknown as ContextBudget;
      return ledger.record({ plan: { messages: [], items, budget, repaired: 0 }, model: 'claude-sonnet-4-5', reported: { inputTokens: total, cacheReadTokens, outputTokens: 100 } });
    };
    await send([system, agents('agents-1'), message('m1', 4_000)], 0);
    await send([system, agents('agents-1'), message('m1', 4_000), message('m2', 500)], 7_000);
    // AGENTS.md was edited between the requests: everything after it is sent uncached.
    await send([system, agents('agents-2'), message('m1', 4_000), message('m2', 500), message('m3', 300)], 2_000);
  });

  it('names AGENTS.md for the request after it changed, with the tokens that went uncached', async () => {
    const reply = await open(2);
    assert.deepEqual(reply.items.map((i) => i.messageId), ['system:base', 'agents:AGENTS.md', 'm1', 'm2', 'm3']);
    assert.deepEqual([reply.cacheMiss?.kind, reply.cacheMiss?.cause, reply.cacheMiss?.previousRequest, reply.cacheMiss?.uncachedTokens], ['agents-md', 'AGENTS.md changed', 1, 4_500]);
  });

  it('sends no cause for a request whose cached share rose, nor for the first request', async () => {
    assert.equal((await open(1)).cacheMiss, undefined);
    assert.equal((await open(0)).cacheMiss, undefined);
  });
});
