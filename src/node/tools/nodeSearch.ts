import { promises as fsp } from 'fs';
import { join, relative } from 'path';
import { Worker } from 'worker_threads';
import { looksBinary } from '../../core/toolOutput/binary';
import type { ResolvedPath, SearchHit } from '../../core/ports/workspace';
import { IGNORED_DIRECTORIES } from '../../core/tools/builtin/listFiles';
import { ToolInputError } from '../../core/tools/types';
import { openRegularFile, readOpened } from '../regularFile';

const MAX_FILE_BYTES = 1024 * 1024;
const MAX_FILES = 20_000;
/** How long one file's matching may take before a model-supplied regex is stopped. */
const REGEX_TIME_LIMIT_MS = 3_000;

/** Matches a file's lines; returns the first `limit` matching lines as [index, text]. */
interface LineMatcher {
  match(text: string, limit: number): Promise<Array<[number, string]>>;
  close(): Promise<void>;
}

function matchLines(pattern: RegExp, text: string, limit: number): Array<[number, string]> {
  const lines = text.split(/\r?\n/);
  const hits: Array<[number, string]> = [];
  for (let i = 0; i < lines.length && hits.length < limit; i++) if (pattern.test(lines[i])) hits.push([i, lines[i]]);
  return hits;
}

/** A literal query compiles to an escaped pattern that matches in linear time: match in place. */
function inlineMatcher(pattern: RegExp): LineMatcher {
  return { match: async (text, limit) => matchLines(pattern, text, limit), close: async () => undefined };
}

// An eval'd worker cannot import the bundle, so it gets matchLines' own source (it uses nothing
// from outside its parameters): both paths match with exactly the same loop.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('worker_threads');
const matchLines = (${matchLines.toString()});
const pattern = new RegExp(workerData.source, workerData.flags);
parentPort.on('message', ({ text, limit }) => {
  try {
    parentPort.postMessage({ hits: matchLines(pattern, text, limit) });
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message || error) });
  }
});
`;

class PatternTimeout extends Error {}

/**
 * A regular expression the model wrote may backtrack for hours (e.g. (a+)+$ on a long line); V8 cannot interrupt a
 * running match, so it runs in a worker thread that is terminated when one file takes too long.
 */
function workerMatcher(pattern: RegExp, signal: AbortSignal, timeLimitMs: number): LineMatcher {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { source: pattern.source, flags: pattern.flags } });
  worker.unref();
  let closed = false;
  return {
    match(text, limit) {
      return new Promise((resolve, reject) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const done = (finish: () => void) => {
          clearTimeout(timer);
          worker.off('message', onMessage);
          worker.off('error', onError);
          worker.off('exit', onExit);
          signal.removeEventListener('abort', onAbort);
          finish();
        };
        const onMessage = (m: { hits?: Array<[number, string]>; error?: string }) =>
          done(() => (m.hits ? resolve(m.hits) : reject(new ToolInputError(`the regular expression failed: ${m.error}`))));
        const onError = (error: Error) => done(() => reject(error));
        const onExit = () => done(() => reject(new Error('the search worker stopped')));
        const onAbort = () => done(() => resolve([]));
        timer = setTimeout(() => done(() => reject(new PatternTimeout())), timeLimitMs);
        worker.on('message', onMessage);
        worker.on('error', onError);
        worker.on('exit', onExit);
        signal.addEventListener('abort', onAbort, { once: true });
        worker.postMessage({ text, limit });
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      await worker.terminate();
    },
  };
}

/**
 * Walks a resolved folder (or reads the one file) and matches each text file's lines, in name
 * order; `read` gives a file's bytes (undefined to skip it). Ignored folders and links are skipped.
 */
export async function searchFiles(
  root: ResolvedPath,
  pattern: RegExp,
  options: { maxResults: number; untrusted: boolean; signal: AbortSignal; read(path: string, maxBytes: number): Promise<Uint8Array | undefined> },
): Promise<SearchHit[]> {
  const { maxResults: max, signal } = options;
  const results: SearchHit[] = [];
  let scanned = 0;
  const walk = async (dir: string): Promise<void> => {
    for (const entry of (await fsp.readdir(dir, { withFileTypes: true }).catch(() => [])).sort((a, b) => a.name.localeCompare(b.name))) {
      if (results.length >= max || scanned >= MAX_FILES || signal.aborted) return;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!IGNORED_DIRECTORIES.has(entry.name)) await walk(path);
        continue;
      }
      if (entry.isFile()) await searchFile(path);
    }
  };
  const matcher = options.untrusted ? workerMatcher(pattern, signal, REGEX_TIME_LIMIT_MS) : inlineMatcher(pattern);
  const searchFile = async (path: string): Promise<void> => {
    const bytes = await options.read(path, MAX_FILE_BYTES);
    if (!bytes) return;
    scanned++;
    if (looksBinary(bytes) || signal.aborted) return;
    const name = relative(root.folder, path).split('\\').join('/');
    let hits: Array<[number, string]>;
    try {
      hits = await matcher.match(Buffer.from(bytes).toString('utf8'), max - results.length);
    } catch (error) {
      if (error instanceof PatternTimeout) {
        throw new ToolInputError(`the pattern took longer than ${REGEX_TIME_LIMIT_MS / 1000} s on ${name}; simplify it (nested quantifiers such as (a+)+ backtrack exponentially)`);
      }
      throw error;
    }
    for (const [i, line] of hits) results.push({ path: name, line: i + 1, text: line });
  };
  try {
    if ((await fsp.stat(root.absolute)).isDirectory()) await walk(root.absolute);
    else await searchFile(root.absolute);
  } finally {
    await matcher.close();
  }
  return results;
}

/**
 * A file's bytes from disk, or undefined when it is missing, unreadable, not a regular file (a
 * named pipe is never waited on), a link, over `maxBytes`, or has more than one hard link (another
 * name may lie outside the workspace; read_file asks for it).
 */
export async function readSmallFile(path: string, maxBytes: number): Promise<Uint8Array | undefined> {
  const opened = await openRegularFile(path, { noFollow: true }).catch(() => undefined);
  if (opened?.kind !== 'open') return undefined;
  const { handle, stat } = opened;
  try {
    if (stat.size > maxBytes || stat.nlink > 1) return undefined;
    const { bytes, total } = await readOpened(handle, stat.size, maxBytes);
    return total > maxBytes ? undefined : bytes;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}
