import { randomUUID } from 'crypto';
import { strict as assert } from 'assert';
import * as vscode from 'vscode';
import { tallyApi as api, until } from './hostHelpers';

/**
 * Tally: Search Sessions in a real VS Code: the picker searches the store's index of titles and
 * message text as typed, and choosing the row opens that session. The session shown before is
 * shown again after.
 */
describe('Search Sessions in a real VS Code', () => {
  it('finds a past session by a word of its messages and by its title (quotes, %, _), and opens the one chosen', async function () {
    this.timeout(120_000);
    const t = await api();
    const before = (await t.sessions.current()).info.id;
    const store = await t.sessions.store();
    // A fixed time and an id of its own: the test reads no clock.
    const stamp = 1_767_225_600_000;
    const messageId = `search-m-${randomUUID()}`;
    const target = await store.createSession({ title: 'Release "arm64" at 100% of load_config' });
    await store.putMessages(target.id, [{ id: messageId, role: 'user', kind: 'user', content: 'Why does the quokkaharbor job fail on the arm64 runner?', agentVisible: true, userVisible: true, createdAt: stamp }]);
    const other = await store.createSession({ title: 'Unrelated session' });
    try {
      const byText = await store.searchSessions('quokkaharbor');
      assert.deepEqual(byText.map((h) => h.session.id), [target.id]);
      assert.deepEqual((await store.searchSessions('100% of load_')).map((h) => h.session.id), [target.id]);
      let opened: string | undefined;
      const picking = vscode.commands.executeCommand<string | undefined>('tally.searchSessions', 'quokkaharbor').then((id) => (opened = id));
      await until('the picker opened the session found', async () => {
        await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
        return opened !== undefined;
      });
      await picking;
      assert.equal(opened, target.id);
      assert.equal((await t.sessions.current()).info.id, target.id, 'the chosen session is the one shown');
    } finally {
      await t.sessions.open(before);
      await store.deleteSession(target.id);
      await store.deleteSession(other.id);
    }
  });
});
