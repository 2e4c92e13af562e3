/**
 * Host CPU to build one request body in a long session, per wire format: the Anthropic body built
 * alone (as every request did before) against the builder that starts from the last body's turns,
 * and the OpenAI builder. A session of `size` messages (a user request every 50, assistant steps
 * with a call and its result), settled as the session settles them; each request adds a message,
 * its list made from the last one as the session makes it (listLineage). Medians of the requests.
 * Run: node -r ./test/register.cjs bench/requestBody.bench.ts [size] [requests]
 */
import { loadavg } from 'os';
import { assistantMessage, toolResultMessage, userMessage } from '../src/core/model/factories';
import { noteDerived } from '../src/core/model/listLineage';
import type { Message } from '../src/core/model/message';
import { settleMessages } from '../src/core/model/settledMessages';
import { AnthropicBodyBuilder, anthropicBodyBytes } from '../src/core/providers/anthropic/anthropicBodyBytes';
import { OpenAIBodyBuilder } from '../src/core/providers/openai/openaiBodyBytes';
import type { ProviderRequest } from '../src/core/providers/types';
import { median } from './median';

const size = Number(process.argv[2] ?? 50_000);
const requests = Number(process.argv[3] ?? 7);

function session(count: number): Message[] {
  const messages: Message[] = [];
  let t = 1;
  while (messages.length < count) {
    messages.push(userMessage(`Task ${messages.length}: fix the build.`, { createdAt: t++ }));
    for (let i = 0; i < 24; i++) {
      const call = { id: `c${messages.length}`, name: 'run_command', arguments: `{"command":"npm test -- ${messages.length}"}` };
      messages.push(assistantMessage(`Step ${i}.`, [call], { createdAt: t++ }), toolResultMessage(call, `ok ${messages.length}\n`.repeat(3), { createdAt: t++ }));
    }
  }
  return settleMessages(messages);
}

function cpuMs(run: () => void): number {
  const started = process.cpuUsage();
  run();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}

const request = (messages: Message[]): ProviderRequest => ({ model: 'bench', system: [{ text: 'You are a coding agent.', cacheBreakpoint: true }], messages, tools: [], maxOutputTokens: 8_192 });
const loadBefore = loadavg()[0];
let list = session(size);
noteDerived(list, undefined, 0);
const anthropic = new AnthropicBodyBuilder();
const openai = new OpenAIBodyBuilder();
anthropic.chunks(request(list));
openai.chunks(request(list), { maxTokensField: 'max_tokens' });
const times = { anthropicAlone: [] as number[], anthropicBuilder: [] as number[], openaiBuilder: [] as number[] };
for (let r = 0; r < requests; r++) {
  const next = [...list, ...settleMessages([userMessage(`More, ${r}.`, { createdAt: 1e9 + r })])];
  noteDerived(next, list, list.length);
  list = next;
  times.anthropicAlone.push(cpuMs(() => anthropicBodyBytes(request(list))));
  times.anthropicBuilder.push(cpuMs(() => anthropic.chunks(request(list))));
  times.openaiBuilder.push(cpuMs(() => openai.chunks(request(list), { maxTokensField: 'max_tokens' })));
}
const round = (n: number) => Math.round(n * 10) / 10;
console.log(JSON.stringify({ size, requests, load: [round(loadBefore), round(loadavg()[0])], cpuMs: Object.fromEntries(Object.entries(times).map(([k, v]) => [k, round(median(v))])) }));
