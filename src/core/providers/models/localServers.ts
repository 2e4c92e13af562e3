/**
 * Which OpenAI-compatible server answers on this machine, for Select Model's pre-filled address:
 * the usual local servers' addresses are asked for their model list at once, and the first in the
 * list's order that answers is offered (Ollama before the fake model that `npm start` runs, so a
 * running Ollama keeps its place). Nothing answering means the usual default, Ollama's.
 */
export const LOCAL_SERVERS: ReadonlyArray<{ name: string; baseUrl: string }> = [
  { name: 'Ollama', baseUrl: 'http://127.0.0.1:11434/v1' },
  { name: "Tally's fake model", baseUrl: 'http://127.0.0.1:11435/v1' },
  { name: 'LM Studio', baseUrl: 'http://127.0.0.1:1234/v1' },
  { name: 'vLLM', baseUrl: 'http://127.0.0.1:8000/v1' },
];

type Probe = (input: string, init: { signal: AbortSignal }) => Promise<{ ok: boolean }>;

export async function answeringLocalServer(options: { servers?: ReadonlyArray<{ name: string; baseUrl: string }>; fetch?: Probe; timeoutMs?: number } = {}): Promise<string> {
  const servers = options.servers ?? LOCAL_SERVERS;
  const probe: Probe = options.fetch ?? ((input, init) => fetch(input, init));
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? 600);
  try {
    const answers = await Promise.all(servers.map((s) => probe(`${s.baseUrl}/models`, { signal: controller.signal }).then((r) => r.ok, () => false)));
    return servers[answers.indexOf(true)]?.baseUrl ?? servers[0].baseUrl;
  } finally {
    clearTimeout(timer);
  }
}
