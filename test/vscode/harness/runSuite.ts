import { build } from 'esbuild';
import { cpSync, mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';
import { launchBrowser } from './browser';
import { startCodeServer } from './codeServer';
import { makeWorkspace } from './workspace';

const ROOT = resolve(__dirname, '..', '..', '..');

/** Bundles an extension-host suite (vscode external) so the extension host can load it as one file. */
export async function bundleSuite(name: 'suite' | 'suite-restricted'): Promise<string> {
  const outfile = join(ROOT, 'out', `vscode-${name}`, 'index.js');
  await build({ entryPoints: [join(ROOT, 'test', 'vscode', name, 'index.ts')], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile, external: ['vscode'], logLevel: 'warning' });
  return join(ROOT, 'out', `vscode-${name}`);
}

/** Runs one extension-host suite in code-server, driven by Chromium; returns mocha's counts. */
export async function runSuite(name: 'suite' | 'suite-restricted', trusted: boolean): Promise<{ passed: number; failed: number; failures: string[]; exitCode: number }> {
  const testsPath = await bundleSuite(name);
  const dir = mkdtempSync(join(tmpdir(), `tally-vscode-${name}-`));
  const workspace = makeWorkspace(dir);
  // A second extension, installed beside Tally: it registers a language model tool with a side
  // effect (see test/vscode/markerTool). The payload takes one extensionDevelopmentPath only.
  cpSync(join(ROOT, 'test', 'vscode', 'markerTool'), join(dir, 'extensions', 'tally-test.marker-tool-0.0.1'), { recursive: true });
  // A third: a scripted chat model registered through the `chatProvider` API proposal (see
  // test/vscode/lmProviderExtension); the payload's enableProposedApi lets installed extensions use it.
  cpSync(join(ROOT, 'test', 'vscode', 'lmProviderExtension'), join(dir, 'extensions', 'tally-test.lm-provider-0.0.1'), { recursive: true });
  const server = await startCodeServer({ dir, workspace, settings: { 'security.workspace.trust.enabled': !trusted ? true : false, 'tally.provider': 'openai-compatible' } });
  const browser = await launchBrowser();
  let counts = { passed: 0, failed: 0 };
  const failures: string[] = [];
  try {
    const page = await browser.newPage();
    const exit = new Promise<number>((resolveExit) => {
      void page.exposeFunction('codeAutomationExit', (code: number) => resolveExit(code));
    });
    await page.exposeFunction('codeAutomationLog', (_type: string, args: unknown[]) => {
      const line = args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
      const m = /vscode-suite: (\d+) passed, (\d+) failed/.exec(line);
      if (m) counts = { passed: Number(m[1]), failed: Number(m[2]) };
      const failure = /^vscode-suite failed: (.*)$/.exec(line);
      if (failure) failures.push(`${name}: ${failure[1]}`);
      process.stdout.write(`${line}\n`);
    });
    const payload = [
      ['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${server.port}${ROOT}`],
      ['extensionTestsPath', `vscode-remote://127.0.0.1:${server.port}${testsPath}`],
      ['enableProposedApi', ''],
    ];
    await page.goto(`${server.url}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`);
    const exitCode = await Promise.race([exit, new Promise<number>((r) => setTimeout(() => r(124), 600_000))]);
    if (exitCode === 124) console.error(`${name}: timed out`);
    if (exitCode !== 0 && failures.length === 0) failures.push(`${name}: exited with ${exitCode === 124 ? 'a timeout' : `code ${exitCode}`}`);
    return { ...counts, failures, failed: counts.failed + (exitCode !== 0 && counts.failed === 0 ? 1 : 0), exitCode };
  } finally {
    await browser.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
