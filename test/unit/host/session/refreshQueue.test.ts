import { strict as assert } from 'assert';
import { RefreshQueue } from '../../../../src/host/session/refreshQueue';

describe('a view refreshes one at a time', () => {
  it('runs the refreshes asked for while one runs as one refresh after it, whole when any asked for it', async () => {
    const runs: boolean[] = [];
    let running = 0;
    let release!: () => void;
    const firstHeld = new Promise<void>((resolve) => (release = resolve));
    const queue = new RefreshQueue(async (whole) => {
      assert.equal(running, 0, 'never two at once');
      running++;
      runs.push(whole);
      if (runs.length === 1) await firstHeld;
      running--;
    });
    const ready = queue.request(true); // the webview loaded
    await Promise.resolve();
    const changed = [queue.request(), queue.request(false), queue.request(true), queue.request()]; // the session opened, a turn...
    release();
    await Promise.all([ready, ...changed]);
    assert.deepEqual(runs, [true, true]);
    await queue.request();
    assert.deepEqual(runs, [true, true, false], 'a later request runs again');
  });

  it('answers requests made before the first refresh starts with that refresh', async () => {
    let runs = 0;
    const queue = new RefreshQueue(async () => {
      runs++;
    });
    await Promise.all([queue.request(true), queue.request(), queue.request()]);
    assert.equal(runs, 1);
  });
});
