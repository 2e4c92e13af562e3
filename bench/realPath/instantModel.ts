/**
 * An OpenAI-compatible model that answers at once (POST /v1/chat/completions, streamed
 * chat.completion.chunk events), run as a child process of the bench so its work never shares the
 * extension's event loop. The parent scripts each request's answer over IPC ('tool': one list_files
 * call; 'delegate': one delegate call, whose subagent's request takes the next answer; 'text': a
 * short final reply) and gets, per request, the time spent inside the handler: from
 * the request body's last byte to the answer's last byte written (receiving the body is the
 * sender's work: a bigger body takes longer to send). A request with no scripted answer gets
 * a 500 and is reported, so a turn that asks more than the bench expects stops the bench. A request
 * that offers no tools is a compaction's summary request: it is answered with a short summary
 * without a script (how many a compaction sends is the extension's business) and reported as 'summary'.
 */
import { createReadStream, existsSync } from 'fs';
import { createServer } from 'http';
import { basename, join } from 'path';
import { PAGES_FOLDER_ENV } from './modelServer';

/** 'tool': one list_files call; 'delegate': one delegate call; 'text': a short final reply; `{ tool, args }`: one call of that tool with those arguments. */
export type ScriptedAnswer = 'tool' | 'delegate' | 'text' | { tool: string; args: Record<string, unknown> };
export type Answer = ScriptedAnswer | 'summary';

export type ToParent =
  | { type: 'listening'; port: number }
  | { type: 'handled'; answer: Answer; handlerMs: number; bodyBytes: number }
  | { type: 'unexpected'; method: string; url: string; bodyBytes: number };
export type ToChild = { type: 'script'; answers: ScriptedAnswer[] } | { type: 'close' };

const queue: ScriptedAnswer[] = [];
let served = 0;

function send(message: ToParent): void {
  process.send?.(message);
}

function events(answer: Answer, model: string, promptTokens: number): string {
  const n = ++served;
  const base = { id: `chatcmpl-bench-${n}`, object: 'chat.completion.chunk', created: 1_700_000_000 + n, model, system_fingerprint: 'fp_bench' };
  const chunk = (delta: unknown, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: null });
  const out: unknown[] = [chunk({ role: 'assistant', content: '' })];
  if (answer === 'tool' || typeof answer === 'object') {
    const [name, args] = answer === 'tool' ? ['list_files', { path: '.' }] : [answer.tool, answer.args];
    out.push(chunk({ content: `Calling ${name}.` }));
    out.push(chunk({ tool_calls: [{ index: 0, id: `call_bench_${process.pid}_${n}`, type: 'function', function: { name, arguments: '' } }] }));
    out.push(chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(args) } }] }));
    out.push(chunk({}, 'tool_calls'));
  } else if (answer === 'delegate') {
    out.push(chunk({ content: 'Handing this to a subagent.' }));
    out.push(chunk({ tool_calls: [{ index: 0, id: `call_bench_${process.pid}_${n}`, type: 'function', function: { name: 'delegate', arguments: '' } }] }));
    out.push(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"task":"Say which files are in the workspace."}' } }] }));
    out.push(chunk({}, 'tool_calls'));
  } else if (answer === 'summary') {
    out.push(chunk({ content: '## Goal\nAnswer the user\'s questions about the workspace.\n## Progress\nListed the workspace\'s files several times.\n## Next\nAnswer the next question.' }));
    out.push(chunk({}, 'stop'));
  } else {
    out.push(chunk({ content: 'The workspace holds ' }));
    out.push(chunk({ content: 'three files.' }));
    out.push(chunk({}, 'stop'));
  }
  out.push({ ...base, choices: [], usage: { prompt_tokens: promptTokens, completion_tokens: 12, total_tokens: promptTokens + 12, prompt_tokens_details: { cached_tokens: 0 } } });
  return out.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') + 'data: [DONE]\n\n';
}

const server = createServer((req, res) => {
  const pages = process.env[PAGES_FOLDER_ENV];
  if (pages && req.method === 'GET' && req.url?.startsWith('/pages/')) {
    const file = join(pages, basename(req.url));
    if (!existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    createReadStream(file).pipe(res);
    return;
  }
  let bodyBytes = 0;
  let head = '';
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => {
    if (head.length < 256) head += chunk.subarray(0, 256).toString('utf8');
    bodyBytes += chunk.length;
    chunks.push(chunk);
  });
  req.on('end', () => {
    const received = performance.now();
    const chat = req.method === 'POST' && req.url === '/v1/chat/completions';
    // A top-level "tools" key (inside a string its quotes would be escaped).
    const offersTools = chat && /(^|[^\\])"tools":\[/.test(Buffer.concat(chunks).toString('utf8'));
    const answer: Answer | undefined = !chat ? undefined : offersTools ? queue.shift() : 'summary';
    if (!answer) {
      send({ type: 'unexpected', method: req.method ?? '', url: req.url ?? '', bodyBytes });
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `bench model: no answer scripted for ${req.method} ${req.url}`, type: 'server_error', code: null } }));
      return;
    }
    const model = /"model":"([^"]*)"/.exec(head)?.[1] ?? 'bench';
    res.on('finish', () => send({ type: 'handled', answer, handlerMs: performance.now() - received, bodyBytes }));
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.end(events(answer, model, Math.round(bodyBytes / 4)));
  });
});

process.on('message', (message: ToChild) => {
  if (message.type === 'script') queue.push(...message.answers);
  if (message.type === 'close') server.close(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') send({ type: 'listening', port: address.port });
});
