import { strict as assert } from 'assert';
import type { SessionStore } from '../../../../src/core/ports/sessionStore';
import { chatHandlers } from '../../../../src/host/chat/chatIntents';
import { inspectorHandlers } from '../../../../src/host/inspector/inspectorIntents';
import { openResult, resultDocument } from '../../../../src/host/inspector/resultDocument';
import { receiveWebviewMessage } from '../../../../src/protocol/receive';
import { parseChatMessage, parseInspectorMessage } from '../../../../src/protocol/validate';
import { storeFolderPerTest } from '../../node/store/fixtures/storeFolder';

/**
 * The chat and the inspector show one session; a ref id in a webview message (which a page can
 * send with any id) must never read the result of another session (another workspace's).
 */
describe('the chat and the inspector open only the shown session’s results', function () {
  this.timeout(60_000);
  const stores = storeFolderPerTest('tally-host-result-owner-');
  let store: SessionStore;
  let shown: string;
  let other: string;
  let foreignRef: string;
  let ownRef: string;
  const posted: unknown[] = [];
  const opened: Array<{ title: string; content: string }> = [];
  const errors: string[] = [];

  const sessions = {
    current: async () => ({ info: { id: shown } }),
    store: async () => store,
  } as never;
  // What `tally.openResult` runs (extension.ts), with a document opener that records instead of showing.
  const executeCommand = async (command: string, ...args: unknown[]) => {
    assert.equal(command, 'tally.openResult');
    return openResult({ sessions, open: async (title, content) => void opened.push({ title, content }), showError: (text) => void errors.push(text) }, args[0] as string);
  };
  const failures: unknown[] = [];
  const chat = () => ({
    source: 'chat',
    parse: parseChatMessage,
    log: { warn: () => undefined },
    handlers: chatHandlers({ sessions, executeCommand, sendState: async () => undefined, showEarlier: async () => undefined }),
    onError: (error: unknown) => void failures.push(error),
  });
  const inspector = () => ({
    source: 'inspector',
    parse: parseInspectorMessage,
    log: { warn: () => undefined },
    handlers: inspectorHandlers({ sessions, post: (m) => void posted.push(m), sendState: async () => undefined, showEarlier: async () => undefined, executeCommand, showInformation: () => undefined }),
    onError: (error: unknown) => void failures.push(error),
  });

  beforeEach(async () => {
    store = await stores.openStore(stores.folder(), { debounceMs: 5 });
    const a = await store.createSession({ title: 'workspace A' });
    const b = await store.createSession({ title: 'workspace B' });
    other = a.id;
    shown = b.id;
    foreignRef = (await store.putBlob(a.id, { toolName: 'run_command', content: Buffer.from('secret of A\n') })).id;
    ownRef = (await store.putBlob(b.id, { toolName: 'run_command', content: Buffer.from('output of B\n') })).id;
    posted.length = opened.length = errors.length = failures.length = 0;
  });

  it('inspector loadBlob: another session’s ref fails and posts nothing; the shown session’s posts its page', async () => {
    await receiveWebviewMessage({ type: 'loadBlob', refId: foreignRef, offset: 0 }, inspector());
    assert.deepEqual(posted, []);
    assert.match(String(failures[0]), new RegExp(`no stored result ${foreignRef} in this session`));

    await receiveWebviewMessage({ type: 'loadBlob', refId: ownRef, offset: 0 }, inspector());
    assert.deepEqual(posted, [{ type: 'blobPage', refId: ownRef, offset: 0, text: 'output of B\n', totalBytes: 12, nextOffset: undefined }]);
    shown = other;
    await receiveWebviewMessage({ type: 'loadBlob', refId: foreignRef, offset: 10 }, inspector());
    assert.equal((posted[1] as { text: string }).text, 'A\n', 'A reads its own result once A is shown');
  });

  it('chat openResult and inspector Open in editor: another session’s ref opens nothing and says so; the shown session’s opens', async () => {
    await receiveWebviewMessage({ type: 'openResult', refId: foreignRef }, chat());
    await receiveWebviewMessage({ type: 'openBlobInEditor', refId: foreignRef }, inspector());
    assert.equal(opened.length, 0, 'no document opened');
    assert.deepEqual(errors, [`Tally: no stored result ${foreignRef} in this session.`, `Tally: no stored result ${foreignRef} in this session.`]);

    await receiveWebviewMessage({ type: 'openResult', refId: ownRef }, chat());
    assert.deepEqual(opened.map((d) => d.content), ['output of B\n']);
    assert.match(opened[0].title, /^run_command.*\(full result\)$/);
    assert.deepEqual(failures, []);
  });

  it('resultDocument: nothing for a session that does not own the ref, the document for one that does', async () => {
    assert.equal(await resultDocument(store, shown, foreignRef), undefined);
    assert.equal((await resultDocument(store, other, foreignRef))?.content, 'secret of A\n');
  });
});
