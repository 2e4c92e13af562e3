import { spawn, type ChildProcess } from 'child_process';
import { mkdirSync, writeFileSync } from 'fs';
import { createServer } from 'net';
import { join } from 'path';

export const CODE_SERVER_ENTRY = join(__dirname, '..', '..', '..', '.vscode-test', 'code-server', 'node_modules', 'code-server', 'out', 'node', 'entry.js');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface RunningCodeServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Starts code-server on 127.0.0.1 with fresh user data and the given user settings. */
export async function startCodeServer(args: { dir: string; workspace: string; settings: Record<string, unknown> }): Promise<RunningCodeServer> {
  const port = await freePort();
  const userData = join(args.dir, 'user-data');
  mkdirSync(join(userData, 'User'), { recursive: true });
  writeFileSync(join(userData, 'User', 'settings.json'), JSON.stringify({ 'workbench.startupEditor': 'none', 'telemetry.telemetryLevel': 'off', 'update.mode': 'none', ...args.settings }, null, 2));
  const child: ChildProcess = spawn(
    process.execPath,
    [CODE_SERVER_ENTRY, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--user-data-dir', userData, '--extensions-dir', join(args.dir, 'extensions'), '--disable-telemetry', '--disable-update-check', args.workspace],
    { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const started = Date.now();
  for (;;) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (response.ok) break;
    } catch {
      // not up yet
    }
    if (child.exitCode !== null) throw new Error(`code-server exited early:\n${output}`);
    if (Date.now() - started > 60_000) throw new Error(`code-server did not start in 60 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async stop() {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
      await new Promise((r) => setTimeout(r, 300));
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}
