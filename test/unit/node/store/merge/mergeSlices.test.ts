import { strict as assert } from 'assert';
import { readdirSync } from 'fs';
import { join } from 'path';
import type { Message } from '../../../../../src/core/model/message';
import { MERGE_STEP_FILES } from '../../../../../src/node/store/merge/closedWriterMerge';
import { storeFolderPerTest } from '../fixtures/storeFolder';
import { turnTicker } from '../../../../support/eventLoopTurns';

const SESSION = 'sbig';
const body = 'x'.repeat(1_000);
const message = (id: string, createdAt: number): Message => ({ id, role: 'user', kind: 'user', content: `${id} ${body}`, agentVisible: true, userVisible: true, createdAt });

describe('merging closed windows in steps and slices', function () {
  this.timeout(120_000);
  const stores = storeFolderPerTest('tally-merge-slices-');

  it('copies large closed-window files in slices that let the event loop run, in capped steps, losing nothing', async () => {
    const folder = stores.folder();
    const windows = MERGE_STEP_FILES + 4; // more files than one step takes
    for (let w = 0; w < windows; w++) {
      const store = await stores.openStore(folder, { debounceMs: 1e9 });
      if (w === 0) await store.createSession({ id: SESSION, title: 'big' });
      await store.putMessages(SESSION, Array.from({ length: 300 }, (_, i) => message(`w${w}-${i}`, w * 1000 + i)));
      await store.close();
    }
    const log: string[] = [];
    const store = await stores.openStore(folder, { log: (line) => log.push(line) });
    const ticker = turnTicker();
    const transcript = await store.loadTranscript(SESSION);
    await store.closedWindowsMerged();
    ticker.stop();
    const turns = ticker.now();
    assert.equal(transcript.length, windows * 300, 'every message of every closed window');
    const line = log.find((l) => l.includes('merged'));
    assert.ok(line, 'the merge ran');
    const [, files, pauses] = /merged (\d+) files .*\((\d+) pauses/.exec(line!) ?? [];
    assert.ok(Number(files) >= windows, `${files} files merged`);
    assert.ok(Number(pauses) > 0, 'the copy paused for the event loop between slices');
    assert.ok(turns > Number(files), `the event loop turned ${turns} times during the merge`);
    const left = readdirSync(join(folder, 'sessions', SESSION)).filter((n) => n.endsWith('.sqlite'));
    assert.ok(left.every((n) => n.startsWith(store.writer)), 'only the merging window’s files are left');
  });
});
