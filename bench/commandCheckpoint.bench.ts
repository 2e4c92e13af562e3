/**
 * What recording the workspace around a command costs: a workspace of N files (2 KB each, 100 per
 * folder), the wait a command gets before it runs and after it ends (the recorder's work around a
 * command that does nothing), the first time (every file read and stored) and the next (sizes and
 * times only: unchanged files are not read again), and whether the listing's bound was reached.
 * Run: node -r ./test/register.cjs bench/commandCheckpoint.bench.ts [files]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { TurnCheckpointRecorder } from '../src/core/checkpoints/turnRecorder';
import { FileCheckpointStore } from '../src/node/checkpoints/fileCheckpointStore';
import '../src/node/usePlatform';

async function main(): Promise<void> {
  const files = Number(process.argv[2] ?? 5000);
  const root = mkdtempSync(join(tmpdir(), 'tally-bench-checkpoints-'));
  const workspace = join(root, 'workspace');
  try {
    for (let i = 0; i < files; i++) {
      const dir = join(workspace, `dir${Math.floor(i / 100)}`);
      if (i % 100 === 0) mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `file${i}.ts`), `// file ${i}\n${'x'.repeat(2000)}\n`);
    }
    const recorder = new TurnCheckpointRecorder(new FileCheckpointStore(join(root, 'storage')));
    const runs: Array<{ run: string; ms: number; problems: string[] }> = [];
    for (const run of ['first command', 'second command']) {
      recorder.begin('bench', run);
      const started = performance.now();
      await recorder.aroundCommand([workspace], async () => undefined);
      const ms = Math.round(performance.now() - started);
      runs.push({ run, ms, problems: (await recorder.end())?.problems ?? [] });
    }
    console.log(JSON.stringify({ files, runs }, null, 2));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

void main();
