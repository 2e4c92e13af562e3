import { strict as assert } from 'assert';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { readRegularFile } from '../../../src/node/regularFile';

describe('reading a regular file', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tally-regular-file-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const bytesOf = (path: string, maxBytes: number) => {
    const read = readRegularFile(path, { maxBytes });
    assert.equal(read.kind, 'bytes');
    return (read as { bytes: Buffer }).bytes;
  };

  it('gives back exactly the bytes of files of every size up to the cap, an empty one included', () => {
    for (const size of [0, 1, 2047, 2048, 4095, 4096, 70_000, 1024 * 1024]) {
      const path = join(dir, `f${size}`);
      const bytes = Buffer.alloc(size, 0);
      for (let i = 0; i < size; i++) bytes[i] = (i * 31 + size) & 0xff;
      writeFileSync(path, bytes);
      assert.ok(bytesOf(path, 1024 * 1024).equals(bytes), `a file of ${size} bytes`);
    }
  });

  it('refuses a file past the cap', () => {
    const path = join(dir, 'big');
    writeFileSync(path, Buffer.alloc(1001));
    assert.deepEqual(readRegularFile(path, { maxBytes: 1000 }), { kind: 'too large', size: 1001 });
  });

  it('reads what a file holds past the size it claims (as files under /proc claim 0), and stops at the cap', function () {
    if (!existsSync('/proc/self/status')) this.skip();
    const text = bytesOf('/proc/self/status', 1024 * 1024).toString();
    assert.match(text, /^Name:/);
    assert.match(text, /\nPid:\s+\d+/);
    assert.deepEqual(readRegularFile('/proc/self/status', { maxBytes: 10 }), { kind: 'too large' });
  });
});
