import { strict as assert } from 'assert';
import type { SessionStore } from '../../../../src/core/ports/sessionStore';
import { SessionListing } from '../../../../src/host/chat/sessionListing';
import { storeFolderPerTest } from '../../node/store/fixtures/storeFolder';

/** The chat's session list is read once, not on each of a turn's many refreshes, and still follows every change. */
describe('the chat header keeps its session list between refreshes', function () {
  this.timeout(60_000);
  const stores = storeFolderPerTest('tally-session-listing-');

  function counting(store: SessionStore): { store: SessionStore; listings: () => number } {
    let listings = 0;
    const counted = Object.create(store) as SessionStore;
    counted.listSessions = () => (listings++, store.listSessions());
    return { store: counted, listings: () => listings };
  }

  async function headerTitles(listing: SessionListing): Promise<string[]> {
    return (await listing.sessions()).map((s) => s.title).sort();
  }

  it('many refreshes list the sessions once', async () => {
    const store = await stores.openStore(stores.folder(), { debounceMs: 5 });
    for (let i = 0; i < 5; i++) await store.createSession({ title: `session ${i}` });
    const counted = counting(store);
    const listing = new SessionListing(counted.store);
    for (let refresh = 0; refresh < 30; refresh++) assert.equal((await headerTitles(listing)).length, 5);
    assert.equal(counted.listings(), 1, 'thirty refreshes, one listing');
    listing.dispose();
    await store.close();
  });

  it('a created, renamed or deleted session shows at the next refresh, at one listing each', async () => {
    const store = await stores.openStore(stores.folder(), { debounceMs: 5 });
    const first = await store.createSession({ title: 'first' });
    const counted = counting(store);
    const listing = new SessionListing(counted.store);
    assert.deepEqual(await headerTitles(listing), ['first']);
    const second = await store.createSession({ title: 'second' });
    assert.deepEqual(await headerTitles(listing), ['first', 'second']);
    await store.updateSession(first.id, { title: 'renamed' });
    assert.deepEqual(await headerTitles(listing), ['renamed', 'second']);
    await store.deleteSession(second.id);
    assert.deepEqual(await headerTitles(listing), ['renamed']);
    for (let refresh = 0; refresh < 10; refresh++) await headerTitles(listing);
    assert.equal(counted.listings(), 4, 'one listing at first and one after each of the three changes');
    listing.dispose();
    await store.close();
  });

  it('the chat reloading reads the list again: a session another window created shows', async () => {
    const folder = stores.folder();
    const store = await stores.openStore(folder, { debounceMs: 5 });
    await store.createSession({ title: 'here' });
    const listing = new SessionListing(store);
    assert.deepEqual(await headerTitles(listing), ['here']);
    const other = await stores.openStore(folder, { debounceMs: 5 });
    await other.createSession({ title: 'other window' });
    await other.flush();
    listing.stale();
    assert.deepEqual(await headerTitles(listing), ['here', 'other window']);
    listing.dispose();
    await other.close();
    await store.close();
  });

  it('a listing that failed is not kept: the next refresh lists again', async () => {
    const store = await stores.openStore(stores.folder(), { debounceMs: 5 });
    await store.createSession({ title: 'kept' });
    let fail = true;
    const flaky = Object.create(store) as SessionStore;
    flaky.listSessions = () => (fail ? Promise.reject(new Error('EIO: i/o error')) : store.listSessions());
    const listing = new SessionListing(flaky);
    await assert.rejects(listing.sessions(), /EIO/);
    fail = false;
    assert.deepEqual(await headerTitles(listing), ['kept']);
    listing.dispose();
    await store.close();
  });
});
