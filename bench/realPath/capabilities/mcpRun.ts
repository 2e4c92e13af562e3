/**
 * One run of the MCP bench (mcp.bench.ts) in its own process. `server`:
 *   none    – no MCP server configured;
 *   slow    – a stdio server (slowMcpServer.cjs) that answers `initialize` after 3 s and lists
 *             20 tools, all turned on in Configure Tools, `echo` allowed;
 *   silent  – a program that never answers `initialize` (the start limit, 30 s, ends it);
 *   missing – a command that does not exist.
 * Times activation, the chat's first state and the first turn (a list_files call) while the server
 * starts; for `slow`, once it runs: turns with its 20 tools offered, turns calling its `echo` tool
 * (the call timed from tool_call to tool_result), and the same call made directly with the SDK's
 * client on a server of its own.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { join } from 'path';
import { median } from '../../median';
import { openSession, type CapabilitySession } from './capabilitySession';
import { runAsChild } from '../runAsChild';

export type McpServerKind = 'none' | 'slow' | 'silent' | 'missing';

export interface McpRunOptions {
  extensionRoot: string;
  seededStorage: string;
  server: McpServerKind;
  turns: number;
}

const INIT_DELAY_MS = 3_000;
const TOOL_COUNT = 20;
const SERVER_NAME = 'bench';
const TOOL_NAMES = ['echo', ...Array.from({ length: TOOL_COUNT - 1 }, (_, i) => `tool_${i + 1}`)].map((t) => `mcp_${SERVER_NAME}_${t}`);

function serverProgram(delayMs: number) {
  return { command: process.execPath, args: [join(__dirname, 'slowMcpServer.cjs')], env: { MCP_INIT_DELAY_MS: String(delayMs), MCP_TEST_TOOLS: String(TOOL_COUNT) } };
}

function serverSetting(kind: McpServerKind): Record<string, unknown> {
  if (kind === 'none') return {};
  if (kind === 'slow') return { [SERVER_NAME]: serverProgram(INIT_DELAY_MS) };
  if (kind === 'silent') return { [SERVER_NAME]: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1e6)'] } };
  return { [SERVER_NAME]: { command: '/nonexistent/tally-bench-mcp-server' } };
}

/** Resolves once the server is running (bounded). */
async function serverRunning(session: CapabilitySession, timeoutMs: number): Promise<number> {
  const started = performance.now();
  const mcp = session.ext.api.mcp.servers;
  const running = () => mcp.status().some((s) => s.name === SERVER_NAME && s.state === 'running' && s.toolCount > 0);
  if (!running()) {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the MCP server did not run within ${timeoutMs} ms: ${JSON.stringify(mcp.status())}`)), timeoutMs);
      const subscription = mcp.onDidChange(() => {
        if (!running()) return;
        clearTimeout(timer);
        subscription.dispose();
        resolve();
      });
    });
  }
  return performance.now() - started;
}

/** The echo call's round trip with the SDK's client straight to a server of its own (no delay). */
async function directCalls(count: number): Promise<number[]> {
  const program = serverProgram(0);
  const client = new Client({ name: 'bench', version: '0.0.0' });
  await client.connect(new StdioClientTransport({ command: program.command, args: program.args, env: { ...process.env, ...program.env } as Record<string, string>, stderr: 'inherit' }));
  const times: number[] = [];
  try {
    for (let i = 0; i < count + 1; i++) {
      const started = performance.now();
      await client.callTool({ name: 'echo', arguments: { text: `call ${i}` } });
      if (i > 0) times.push(performance.now() - started);
    }
  } finally {
    await client.close();
  }
  return times;
}

/** The bench server's state now, as Tally keeps it. */
function serverState(session: { ext: { api: { mcp: { servers: { status(): Array<{ name: string; state: string }> } } } } }): string {
  return session.ext.api.mcp.servers.status().find((s) => s.name === SERVER_NAME)?.state ?? 'not started (its settings not read yet)';
}

async function measure(options: McpRunOptions) {
  let stateAtActivate = '';
  const session = await openSession({
    afterActivate: (ext) => (stateAtActivate = serverState({ ext })),
    extensionRoot: options.extensionRoot,
    seededStorage: options.seededStorage,
    settings: { 'mcp.servers': serverSetting(options.server), 'tools.allowed': [`mcp_${SERVER_NAME}_echo`] },
    globalState: { 'tally.toolChoice': { enabled: TOOL_NAMES, disabled: [] } },
  });
  try {
    const stateAtChatState = serverState(session);
    let stateAtFirstRequest = '';
    const watch = session.ext.api.sessions.onAgentEvent((event) => {
      if (event.type === 'request_start' && !stateAtFirstRequest) stateAtFirstRequest = serverState(session);
    });
    const first = await session.turn('Which files are in the workspace?', ['tool', 'text']);
    watch.dispose();
    const result: Record<string, number | number[] | string> = {
      activateMs: session.activateMs,
      chatStateMs: session.chatStateMs,
      firstTurnWallMs: first.wallMs,
      firstTurnShareMs: first.shareMs,
      firstTurnBlockMs: first.blockMs,
      firstTurnCpuMs: first.cpuMs,
      stateAtActivate,
      stateAtChatState,
      stateAtFirstRequest,
    };
    if (options.server === 'slow') result.serverReadyAfterFirstTurnMs = await serverRunning(session, 60_000);
    const shares: number[] = [];
    const cpu: number[] = [];
    const listCalls: number[] = [];
    const bytes: number[] = [];
    for (let t = 0; t < options.turns; t++) {
      const turn = await session.turn(`Turn ${t}: which files are there?`, ['tool', 'text']);
      shares.push(turn.shareMs);
      cpu.push(turn.cpuMs);
      bytes.push(turn.requestBytes);
      listCalls.push(...turn.toolMs);
    }
    result.turnShareMs = median(shares);
    result.turnCpuMs = median(cpu);
    result.requestKB = Math.round(median(bytes) / 102.4) / 10;
    result.listFilesCallMs = median(listCalls);
    if (options.server === 'slow') {
      const calls: number[] = [];
      const callShares: number[] = [];
      for (let t = 0; t < options.turns; t++) {
        const turn = await session.turn(`Turn ${t}: echo something.`, [{ tool: `mcp_${SERVER_NAME}_echo`, args: { text: `turn ${t}` } }, 'text']);
        if (turn.toolMs.length !== 1) throw new Error(`the echo turn ran ${turn.toolMs.length} tool calls`);
        calls.push(turn.toolMs[0]!);
        callShares.push(turn.shareMs);
      }
      result.mcpCallMs = median(calls);
      result.mcpCallTurnShareMs = median(callShares);
      result.directCallMs = median(await directCalls(options.turns * 2));
    }
    const errors = session.ext.world.shown.filter((s) => s.level === 'error');
    if (errors.length) throw new Error(`the extension showed errors: ${JSON.stringify(errors)}`);
    const warnings = session.ext.world.shown.filter((s) => s.level === 'warning').map((s) => s.message);
    if (warnings.length) result.warning = warnings.join(' | ');
    return result;
  } finally {
    await session.close();
  }
}

if (require.main === module) runAsChild('mcpRun', measure);
