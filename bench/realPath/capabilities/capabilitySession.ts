/**
 * One measured run of a capability bench, in its own process: the built extension
 * (../startExtension.ts) on a copy of a seeded store, with the capability's settings, the instant
 * model, and the chat resolved. It times activation and the chat's first state, and sends turns
 * through the chat's send intent, each timed from the intent to turn_end with the model server's
 * time subtracted (Tally's share) and each tool call from the agent's tool_call to its tool_result.
 */
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { withBlockProbe } from '../../blockProbe';
import type { FakeWebview } from '../fakeWebview';
import type { ScriptedAnswer } from '../instantModel';
import { InstantModelServer } from '../modelServer';
import { copyStorage, workspaceFolder } from '../seedSession';
import { startExtension, type RunningExtension } from '../startExtension';

export interface SessionOptions {
  extensionRoot: string;
  /** A storage folder seeded by seedSession.ts; copied, never changed. */
  seededStorage: string;
  /** `tally.*` user settings besides the model's. */
  settings?: Record<string, unknown>;
  globalState?: Record<string, unknown>;
  /** Called once activate() has returned, before the chat is resolved. */
  afterActivate?: (ext: RunningExtension) => void;
  /** Adds files to the workspace folder before the extension starts. */
  prepareWorkspace?: (folder: string) => void;
  timeoutMs?: number;
}

export interface MeasuredTurn {
  wallMs: number;
  serverMs: number;
  /** Wall time minus the model server's time inside its handlers. */
  shareMs: number;
  /** The host's CPU from the intent to turn_end (the model runs in another process): less swayed by a busy machine than wall time. */
  cpuMs: number;
  /** From each tool_call to its tool_result (the tool, its hooks, and recording its result). */
  toolMs: number[];
  /** The host's CPU over each of those, ms. */
  toolCpuMs: number[];
  /** The longest the host's event loop went without a turn during the turn. */
  blockMs: number;
  /** The most CPU the host's process used between two turns of its event loop (waiting for a core does not lengthen it). */
  blockCpuMs: number;
  /** The bytes of the turn's last request body. */
  requestBytes: number;
  /** Notices the agent emitted during the turn (what the chat shows under it). */
  notices: string[];
}

export interface CapabilitySession {
  ext: RunningExtension;
  chat: FakeWebview;
  model: InstantModelServer;
  workspace: string;
  /** require + activate(), ms. */
  activateMs: number;
  /** From resolving the chat view to its first `state` post, ms. */
  chatStateMs: number;
  /** `probe: false` leaves out the block probe (blockMs NaN), whose spinning otherwise adds to the host's CPU and takes a core while the turn waits. */
  turn(text: string, answers: ScriptedAnswer[], options?: { probe?: boolean }): Promise<MeasuredTurn>;
  close(): Promise<void>;
}

export async function openSession(options: SessionOptions): Promise<CapabilitySession> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const storageDir = mkdtempSync(join(tmpdir(), 'tally-bench-storage-'));
  copyStorage(options.seededStorage, storageDir);
  const workspace = workspaceFolder();
  options.prepareWorkspace?.(workspace);
  const model = await InstantModelServer.start();
  const ext = await startExtension({
    extensionRoot: options.extensionRoot,
    storageDir,
    workspace: [workspace],
    settings: { provider: 'openai-compatible', baseUrl: model.url, model: 'bench-model', contextWindow: 20_000_000, maxOutputTokens: 8_192, ...options.settings },
    globalState: options.globalState,
  });
  options.afterActivate?.(ext);
  const opened = performance.now();
  const chat = ext.showChat();
  await chat.waitForPost('chat state', (p) => p.message.type === 'state', { timeoutMs });
  const chatStateMs = performance.now() - opened;

  const turn = async (text: string, answers: ScriptedAnswer[], turnOptions: { probe?: boolean } = {}): Promise<MeasuredTurn> => {
    model.script(...answers);
    const calls = new Map<string, { at: number; cpu: NodeJS.CpuUsage }>();
    const toolMs: number[] = [];
    const toolCpuMs: number[] = [];
    const notices: string[] = [];
    let stopReason: string | undefined;
    let subscription: { dispose(): void } | undefined;
    const ended = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no turn_end within ${timeoutMs} ms (shown: ${JSON.stringify(ext.world.shown.slice(-2))})`)), timeoutMs);
      subscription = ext.api.sessions.onAgentEvent((event) => {
        if (event.type === 'tool_call') calls.set(event.call.id, { at: performance.now(), cpu: process.cpuUsage() });
        const call = event.type === 'tool_result' ? calls.get(event.callId) : undefined;
        if (call) {
          toolMs.push(performance.now() - call.at);
          const used = process.cpuUsage(call.cpu);
          toolCpuMs.push((used.user + used.system) / 1000);
        }
        if (event.type === 'notice') notices.push(event.message);
        if (event.type !== 'turn_end') return;
        stopReason = event.stopReason;
        cpu = process.cpuUsage(cpuBefore);
        clearTimeout(timer);
        resolve(performance.now());
      });
    });
    const cpuBefore = process.cpuUsage();
    let cpu: NodeJS.CpuUsage | undefined;
    const started = performance.now();
    const handled = chat.send({ type: 'send', text });
    try {
      const { result: endedAt, blockMs, blockCpuMs } = turnOptions.probe === false ? { result: await ended, blockMs: NaN, blockCpuMs: NaN } : await withBlockProbe(() => ended);
      await handled;
      if (stopReason !== 'end_turn') throw new Error(`the turn ended with ${stopReason}: ${JSON.stringify(ext.world.shown.slice(-2))} ${ext.world.logLines.slice(-3).join(' | ')}`);
      const requests = await model.waitForHandled(answers.length, timeoutMs);
      const serverMs = requests.reduce((sum, r) => sum + r.handlerMs, 0);
      const wallMs = endedAt - started;
      return { wallMs, serverMs, shareMs: wallMs - serverMs, cpuMs: cpu ? (cpu.user + cpu.system) / 1000 : NaN, toolMs, toolCpuMs, blockMs, blockCpuMs, requestBytes: requests.at(-1)?.bodyBytes ?? 0, notices };
    } finally {
      subscription?.dispose();
    }
  };

  return {
    ext,
    chat,
    model,
    workspace,
    activateMs: ext.requireMs + ext.activateMs,
    chatStateMs,
    turn,
    async close() {
      await ext.dispose();
      model.close();
      rmSync(storageDir, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}

