import { existsSync, readFileSync } from 'fs';
import { dirname } from 'path';
import { Worker, type WorkerOptions } from 'worker_threads';
import { brotliDecompressSync } from 'zlib';

const sources = new Map<string, string>();

/**
 * A worker thread running the bundle at `path`. The packaged extension ships its worker bundles
 * brotli-compressed (`path` + `.br`, a third of what the package's zip makes of them): the source is
 * decompressed once and run with `__dirname` and `__filename` of the file it stands for, so the
 * bundle finds what lies beside it (the WebAssembly, the tokenizer's ranks) as it does from `path`.
 */
export function bundledWorker(path: string, options: WorkerOptions = {}): Worker {
  if (existsSync(path) || !existsSync(`${path}.br`)) return new Worker(path, options);
  let source = sources.get(path);
  if (source === undefined) {
    const bundle = brotliDecompressSync(readFileSync(`${path}.br`)).toString('utf8');
    source = `(function (__dirname, __filename) {${bundle}\n})(${JSON.stringify(dirname(path))}, ${JSON.stringify(path)});`;
    sources.set(path, source);
  }
  return new Worker(source, { ...options, eval: true });
}
