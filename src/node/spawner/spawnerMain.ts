/**
 * The spawner (dist/spawner.js): a small Node process the extension host starts once and asks to
 * start hooks' and commands' processes. Starting a process forks the process that starts it; a
 * fork of this one costs a few milliseconds where a fork of the extension host (hundreds of MB)
 * holds the host's thread for ~100 ms. Requests come on standard input, output and ends go back on
 * standard output (frames.ts). When the host goes (its end of the pipe closes), every process
 * group still running is killed and the spawner exits, so nothing is left behind.
 */
import { frame, FrameKind, FrameReader } from './frames';
import type { Launch } from './launch';
import { launchHere } from './launchHere';

const running = new Map<number, { kill(): void }>();
const send = (kind: FrameKind, id: number, payload?: Buffer | string) => process.stdout.write(frame(kind, id, payload));

function start(id: number, launch: Launch): void {
  let ended = false;
  const run = launchHere(
    launch,
    {
      stdout: (chunk) => send(FrameKind.Stdout, id, chunk),
      stderr: (chunk) => send(FrameKind.Stderr, id, chunk),
      end: (end) => {
        ended = true;
        running.delete(id);
        send(FrameKind.End, id, JSON.stringify(end));
      },
    },
    (pid) => send(FrameKind.Started, id, JSON.stringify({ pid })),
  );
  // A process that could not start has ended already.
  if (!ended) running.set(id, run);
}

const reader = new FrameReader((kind, id, payload) => {
  if (kind === FrameKind.Start) {
    let launch: Launch;
    try {
      launch = JSON.parse(payload.toString('utf8')) as Launch;
    } catch (error) {
      send(FrameKind.End, id, JSON.stringify({ code: null, signal: null, error: `the spawner could not read the request: ${(error as Error).message}` }));
      return;
    }
    start(id, launch);
  } else if (kind === FrameKind.Kill) running.get(id)?.kill();
});

function leave(): void {
  for (const run of running.values()) run.kill();
  process.exit(0);
}

process.stdin.on('data', (chunk: Buffer) => reader.push(chunk));
process.stdin.on('end', leave);
process.stdin.on('close', leave);
process.stdout.on('error', leave);
send(FrameKind.Ready, 0);
