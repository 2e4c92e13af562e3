import type { Message, ToolCall } from '../../src/core/model/message';

/** A small deterministic PRNG so generated sessions are the same on every run. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let counter = 0;
export function msg(partial: Partial<Message> & Pick<Message, 'role' | 'content'>): Message {
  counter++;
  return {
    id: partial.id ?? `t${counter.toString().padStart(6, '0')}`,
    kind: partial.kind ?? (partial.role === 'tool' ? 'tool_result' : partial.role === 'system' ? 'instructions' : partial.role),
    agentVisible: true,
    userVisible: true,
    createdAt: partial.createdAt ?? counter,
    ...partial,
  } as Message;
}

export function call(name: string, args: Record<string, unknown>, id?: string): ToolCall {
  counter++;
  return { id: id ?? `call_${counter}`, name, arguments: JSON.stringify(args) };
}

/** Output of `lines` lines looking like a build or test log, ending with an error line when failing. */
export function logOutput(random: () => number, lines: number, failing: boolean): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    out.push(`[${String(i).padStart(5, '0')}] compiling module_${Math.floor(random() * 1e6)}.ts … ok (${Math.floor(random() * 900)} ms)`);
  }
  if (failing) out.push('Error: expected 3 but received 4 at src/math.ts:42');
  return out.join('\n');
}

export interface ScriptedTurn {
  user?: string;
  assistantText: string;
  calls: Array<{ call: ToolCall; output: string; isError: boolean }>;
}

/** A tool-heavy session: a user request every `userEvery` turns, 1–3 tool calls a turn, outputs up to ~40 KB. */
export function scriptedTurns(count: number, seed = 7, userEvery = 25): ScriptedTurn[] {
  const random = prng(seed);
  const turns: ScriptedTurn[] = [];
  for (let t = 0; t < count; t++) {
    const calls = [];
    const n = 1 + Math.floor(random() * 3);
    for (let k = 0; k < n; k++) {
      if (random() < 0.5) {
        const path = `src/module_${Math.floor(random() * 50)}.ts`;
        calls.push({ call: call('read_file', { path }), output: logOutput(random, 5 + Math.floor(random() * 300), false), isError: false });
      } else {
        const failing = random() < 0.3;
        calls.push({ call: call('run_command', { command: `npm test -- --grep case${t}` }), output: logOutput(random, 10 + Math.floor(random() * 900), failing), isError: failing });
      }
    }
    turns.push({
      user: t % userEvery === 0 ? `Task ${t / userEvery + 1}: fix the failing test in src/math.ts and keep the API stable.` : undefined,
      assistantText: `Step ${t}: I will check the next module because the failure may come from there.`,
      calls,
    });
  }
  return turns;
}
