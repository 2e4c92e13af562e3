import { strict as assert } from 'assert';
import { writeFileSync } from 'fs';
import { join } from 'path';
import { ownsResult } from '../../../../src/core/toolOutput/resultOwnership';
import { storeFolderPerTest } from '../../node/store/fixtures/storeFolder';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString();

describe('a stored result is read only by the session that owns it', function () {
  this.timeout(60_000);
  const stores = storeFolderPerTest('tally-result-owner-');

  it('a ref of a session in one workspace is refused to a session of another, before and after a restart', async () => {
    const folder = stores.folder();
    // Two windows on two workspaces share the store folder (the extension's global storage).
    const windowA = await stores.openStore(folder, { debounceMs: 5 });
    const windowB = await stores.openStore(folder, { debounceMs: 5 });
    const a = await windowA.createSession({ title: 'workspace A' });
    const b = await windowB.createSession({ title: 'workspace B' });
    const secret = await windowA.putBlob(a.id, { toolName: 'run_command', content: Buffer.from('API_TOKEN=hunter2\n') });
    await windowA.flush();

    for (const [name, store] of [['the window that stored it', windowA], ['the other window', windowB]] as const) {
      assert.equal(await store.getBlobInfo(b.id, secret.id), undefined, `${name}: no description for B`);
      await assert.rejects(store.readBlob(b.id, secret.id, 0, 100), new RegExp(`^Error: no stored result ${secret.id} in this session$`), `${name}: B cannot read it`);
    }
    // The owner still reads it, in either window.
    assert.equal(text((await windowB.readBlob(a.id, secret.id, 0, 100)).bytes), 'API_TOKEN=hunter2\n');
    assert.equal((await windowA.getBlobInfo(a.id, secret.id))?.sessionId, a.id);

    await windowA.close();
    await windowB.close();
    const restarted = await stores.openStore(folder);
    await assert.rejects(restarted.readBlob(b.id, secret.id, 0, 100), /no stored result .* in this session/);
    assert.equal(await restarted.getBlobInfo(b.id, secret.id), undefined);
    assert.equal(text((await restarted.readBlob(a.id, secret.id, 0, 9)).bytes), 'API_TOKEN');
    // An unknown ref reads the same as another session's: nothing tells B that A's ref exists.
    await assert.rejects(restarted.readBlob(b.id, 'rnotstored01', 0, 10), /^Error: no stored result rnotstored01 in this session$/);
  });

  it('a damaged ref file is reported to its owner only; another session is told only that it has no such result', async () => {
    const folder = stores.folder();
    let store = await stores.openStore(folder, { debounceMs: 5 });
    const a = await store.createSession({ title: 'A' });
    const b = await store.createSession({ title: 'B' });
    const result = await store.putBlob(a.id, { toolName: 'dump', content: Buffer.from('output\n') });
    await store.close();
    writeFileSync(join(folder, 'blobs', `${result.id}.ref`), 'not json');

    store = await stores.openStore(folder);
    assert.equal(await store.getBlobInfo(b.id, result.id), undefined);
    await assert.rejects(store.readBlob(b.id, result.id, 0, 10), new RegExp(`^Error: no stored result ${result.id} in this session$`));
    await assert.rejects(store.getBlobInfo(a.id, result.id), /could not be read: its file was damaged/, 'the owner learns what happened');
    await assert.rejects(store.readBlob(b.id, result.id, 0, 10), new RegExp(`^Error: no stored result ${result.id} in this session$`), 'also once it was set aside');
  });

  it('ownership: the storing session, and the sessions a result is shared with', () => {
    const info = { sessionId: 'sparent', sharedWith: ['sfork'] };
    assert.equal(ownsResult('sparent', info), true);
    assert.equal(ownsResult('sfork', info), true);
    assert.equal(ownsResult('sother', info), false);
    assert.equal(ownsResult('sother', { sessionId: 'sparent' }), false);
  });
});
