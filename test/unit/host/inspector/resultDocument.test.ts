import { strict as assert } from 'assert';
import type { SessionStore } from '../../../../src/core/ports/sessionStore';
import { openResult } from '../../../../src/host/inspector/resultDocument';
import { storeFolderPerTest } from '../../node/store/fixtures/storeFolder';
import { openState } from '../../../support/sessionStates';
import type { SessionState } from '../../../../src/host/sessionState/sessionState';

/** Open result names a document as the inspector's list names the result, from one name. */
describe('an opened result is named as the inspector lists it', function () {
  this.timeout(60_000);
  const stores = storeFolderPerTest('tally-result-document-');

  async function opened(store: SessionStore, sessionId: string, state: SessionState | undefined, refId: string) {
    let indexReads = 0;
    const counted = Object.create(store) as SessionStore;
    counted.loadToolCallIndex = (id) => (indexReads++, store.loadToolCallIndex(id));
    const docs: string[] = [];
    const sessions = { current: async () => ({ info: { id: sessionId }, state }), store: async () => counted } as never;
    await openResult({ sessions, open: async (title) => void docs.push(title), showError: (text) => assert.fail(text) }, refId);
    return { title: docs[0], indexReads };
  }

  it('a result stored in this window: the list’s name, without reading the session’s calls back', async () => {
    const store = await stores.openStore(stores.folder(), { debounceMs: 5 });
    const { id } = await store.createSession({ title: 'names' });
    const view = await openState(store, id, 200);
    const blob = await store.putBlob(id, { toolName: 'run_command', toolCallId: 'call_1', content: Buffer.from('> mocha\n3 passing\n') });
    view.apply({ kind: 'change', change: { type: 'result', blob, title: { toolName: 'run_command', arguments: '{"command":"npm test"}', requestIndex: 3 } } });
    const listed = view.records.blobTitles.get(blob.id);
    assert.equal(listed, 'run_command npm test · request #3');
    const { title, indexReads } = await opened(store, id, view, blob.id);
    assert.equal(title, `${listed} (full result)`, 'the editor tab says what the inspector list says');
    assert.equal(indexReads, 0, 'the name came with the result; the session’s calls were not read back');
    await store.close();
  });

  it('a result stored before the session opened (the store keeps no name): named from its call in the session’s index', async () => {
    const store = await stores.openStore(stores.folder(), { debounceMs: 5 });
    const { id } = await store.createSession({ title: 'names' });
    await store.putMessages(id, [
      { id: 'a1', role: 'assistant', kind: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'run_command', arguments: '{"command":"npm test"}' }], createdAt: 1_000, agentVisible: true, userVisible: true },
      { id: 't1', role: 'tool', kind: 'tool_result', content: '3 passing', toolCallId: 'call_1', toolName: 'run_command', createdAt: 1_001, agentVisible: true, userVisible: true },
    ]);
    const blob = await store.putBlob(id, { toolName: 'run_command', toolCallId: 'call_1', content: Buffer.from('> mocha\n3 passing\n') });
    const { title, indexReads } = await opened(store, id, await openState(store, id, 200), blob.id);
    assert.equal(title, 'run_command npm test (full result)');
    assert.equal(indexReads, 1);
    await store.close();
  });
});
