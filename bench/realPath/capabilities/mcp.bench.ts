/**
 * MCP servers where the user waits, through the built extension (../startExtension.ts) on a seeded
 * session: activation, the chat's first state and the first turn with no server, with a server
 * that takes 3 s to answer `initialize`, one that never answers, and one whose program does not
 * exist; then, with the slow server running, a turn's share with its 20 tools offered and the round
 * trip of a call to one of them through Tally against the same call made directly. Each
 * (server, build, round) runs in a fresh process (mcpRun.ts); with --old the other build runs in
 * every round too, alternating. Writes bench/results/realPath-mcp.json.
 * Run: node scripts/build.mjs && node -r ./test/register.cjs bench/realPath/capabilities/mcp.bench.ts [--messages 1000] [--old <extension root>] [--rounds 3] [--turns 5]
 */
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { seedSession } from '../seedSession';
import { flag, runBench } from './capabilityBench';
import type { McpServerKind } from './mcpRun';

async function main() {
  const messages = Number(flag('messages') ?? 1_000);
  const seeded = mkdtempSync(join(tmpdir(), `tally-bench-seed-${messages}-`));
  await seedSession(seeded, messages);
  try {
    const servers: McpServerKind[] = ['none', 'slow', 'silent', 'missing'];
    await runBench({
      name: 'realPath-mcp',
      runFile: join(__dirname, 'mcpRun.ts'),
      scenarios: servers.map((server) => ({ name: `${server}, ${messages} messages`, options: { seededStorage: seeded, server, turns: Number(flag('turns') ?? 5) } })),
      rounds: Number(flag('rounds') ?? 3),
      measures: {
        activateMs: 'require dist/extension.js + activate()',
        chatStateMs: 'from resolving the chat view to its first state post',
        firstTurnWallMs: 'the first turn (a list_files call, 2 requests), sent right after the chat’s first state, while the server starts: intent to turn_end',
        firstTurnShareMs: 'the same minus the model server’s time',
        stateAtActivate: 'the server’s state when activate() returned; stateAtChatState when the chat posted its first state; stateAtFirstRequest when the first turn sent its first request',
        requestKB: 'the second request of a later turn, KB (slow: with the server’s 20 tools)',
        serverReadyAfterFirstTurnMs: 'slow: how much longer the server took to run after the first turn ended',
        firstTurnCpuMs: 'host CPU from the first turn’s intent to its turn_end; turnCpuMs the same for later turns',
        turnShareMs: 'later list_files turns: Tally’s share (slow: with the server’s 20 tools offered)',
        listFilesCallMs: 'list_files: tool_call to tool_result',
        mcpCallMs: 'slow: mcp_bench_echo, tool_call to tool_result (allowed in tally.tools.allowed)',
        mcpCallTurnShareMs: 'slow: the share of a turn that calls mcp_bench_echo',
        directCallMs: 'slow: the same echo call with the SDK’s client straight to a server of its own',
      },
      targets: { activateAndChatStateWithinMsOfNone: 5, firstTurnWaitsForServer: false, offeredToolsExtraShareMs: 5, mcpCallOverheadMs: 5 },
    });
  } finally {
    rmSync(seeded, { recursive: true, force: true });
  }
}

main().catch((error: Error) => {
  console.error(error.stack ?? error.message);
  process.exit(1);
});
