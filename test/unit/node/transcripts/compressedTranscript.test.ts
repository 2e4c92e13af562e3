import { strict as assert } from 'assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { brotliCompressSync, gzipSync } from 'zlib';
import { importTranscriptFile } from '../../../../src/node/transcripts/readTranscriptFile';

const DEMO = join(__dirname, '..', '..', '..', '..', 'media', 'demo', 'demo-run.traj.json');

describe('transcripts kept compressed', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tally-compressed-transcript-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('imports a .br or .gz run as the run itself, recognised by its name without the ending', () => {
    const plain = importTranscriptFile(DEMO);
    for (const [ending, compress] of [['.br', brotliCompressSync], ['.gz', gzipSync]] as const) {
      const path = join(dir, `demo-run.traj.json${ending}`);
      writeFileSync(path, compress(readFileSync(DEMO)));
      const imported = importTranscriptFile(path);
      assert.equal(imported.format, plain.format, ending);
      assert.deepEqual(imported.messages, plain.messages, ending);
    }
  });

  it('refuses a damaged compressed file and one that decompresses past the limit, saying which', () => {
    const damaged = join(dir, 'run.traj.json.gz');
    writeFileSync(damaged, gzipSync(readFileSync(DEMO)).subarray(0, 2000));
    assert.throws(() => importTranscriptFile(damaged), /run\.traj\.json\.gz: the compressed file is damaged \(/);
    const bomb = join(dir, 'bomb.json.br');
    writeFileSync(bomb, brotliCompressSync(Buffer.alloc(4 * 2 ** 20, 0x20)));
    assert.throws(() => importTranscriptFile(bomb, 2 ** 20), /bomb\.json\.br: decompressed, the file is over 1 MiB; the limit is 1 MiB/);
  });
});
