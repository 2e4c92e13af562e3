import { strict as assert } from 'assert';
import { readdirSync, utimesSync } from 'fs';
import { join } from 'path';
import type { Database } from 'sql.js';
import type { Message } from '../../../../../src/core/model/message';
import { sqlRuntime } from '../../../../../src/node/store/sql/sqlRuntime';
import { storeFolderPerTest } from '../fixtures/storeFolder';

const message = (id: string, at: number): Message => ({ id, role: 'user', kind: 'user', content: `text ${id}`, agentVisible: true, userVisible: true, createdAt: at });

describe('integrity checks of unchanged files', function () {
  this.timeout(60_000);
  const stores = storeFolderPerTest('tally-checked-');

  it('checks a file once, skips the check while its size and mtime are unchanged (also after a restart), and checks it again once it changes', async () => {
    const SQL = await sqlRuntime();
    const proto = SQL.Database.prototype as Database;
    const original = proto.exec;
    let checks = 0;
    proto.exec = function (this: Database, ...args: Parameters<Database['exec']>) {
      // Only checks of files holding messages count (session index files are read in the background).
      if (String(args[0]).includes('quick_check') && Number(original.call(this, 'SELECT count(*) FROM messages')[0]?.values[0]?.[0] ?? 0) > 0) checks++;
      return original.apply(this, args);
    };
    try {
      const folder = stores.folder();
      const writer = await stores.openStore(folder, { debounceMs: 5 });
      const { id } = await writer.createSession({ title: 'checked' });
      await writer.putMessages(id, [message('m1', 1), message('m2', 2)]);
      await writer.close();
      // Only files that had settled (unchanged for a few seconds) when checked are remembered.
      const dir = join(folder, 'sessions', id);
      const settled = Date.now() / 1000 - 60;
      for (const name of readdirSync(dir)) utimesSync(join(dir, name), settled, settled);

      const first = await stores.openStore(folder);
      checks = 0;
      assert.equal((await first.loadTranscript(id)).length, 2);
      assert.equal(checks, 1, 'a file read for the first time is checked');
      await first.close(); // saves the list of files that passed

      const second = await stores.openStore(folder);
      checks = 0;
      assert.equal((await second.loadTranscript(id)).length, 2);
      assert.equal(checks, 0, 'an unchanged file is not checked again after a restart');
      await second.close();

      const segment = join(folder, 'sessions', id, `${writer.writer}.seg0.sqlite`);
      const later = Date.now() / 1000 - 30;
      utimesSync(segment, later, later);
      const third = await stores.openStore(folder);
      checks = 0;
      assert.equal((await third.loadTranscript(id)).length, 2);
      assert.equal(checks, 1, 'a file whose mtime moved is checked again');
    } finally {
      proto.exec = original;
    }
  });

  it('closes sealed segments once read: a long session does not stay open in memory', async () => {
    const folder = stores.folder();
    const writer = await stores.openStore(folder, { debounceMs: 1e9, segmentMaxBytes: 64 * 1024 });
    const { id } = await writer.createSession({ title: 'long' });
    for (let batch = 0; batch < 6; batch++) {
      await writer.putMessages(id, Array.from({ length: 100 }, (_, i) => ({ ...message(`b${batch}-${i}`, batch * 100 + i), content: 'x'.repeat(1_000) })));
      await writer.flush(); // each save passes 64 KiB: the segment is sealed and the next one started
    }
    await writer.close();
    const reader = await stores.openStore(folder);
    assert.equal((await reader.loadTranscript(id)).length, 600);
    const segments = require('fs').readdirSync(join(folder, 'sessions', id)).filter((n: string) => /\.seg\d+\.sqlite$/.test(n));
    assert.ok(segments.length >= 5, `${segments.length} segments`);
    assert.ok(reader.openDatabases.open <= 3, `${reader.openDatabases.open} databases still open after reading ${segments.length} segments`);
  });
});
