/**
 * An OpenAI-compatible model (POST /v1/chat/completions, streamed chat.completion.chunk events) that
 * answers with large payloads, run as a child process so its work never shares the extension's event
 * loop. Scripted over IPC, per request: 'thinking' streams 22 MB of reasoning (`reasoning_content`,
 * as DeepSeek and vLLM send it; past the 4 MB of thinking kept of one reply) then a short answer,
 * 'thinking4' the same with 4,000,000 characters (just under that limit, so all of it is kept); 'links' streams an answer of 1.2 MB of
 * markdown full of link reference definitions (`[r1]: http://…`) used by the text. Deltas are 2,048
 * characters (BENCH_DELTA_CHARS). 'small' (a one-line answer) is the control: what the same steps cost
 * without a large payload. A request that offers no tools is a compaction's summary request:
 * answered with a short summary without a script.
 */
import { createServer } from 'http';

export type PayloadAnswer = 'small' | 'thinking' | 'thinking4' | 'links';
export type ToParent = { type: 'listening'; port: number } | { type: 'handled'; answer: PayloadAnswer | 'summary' } | { type: 'unexpected'; url: string };
export type ToChild = { type: 'script'; answers: PayloadAnswer[] } | { type: 'close' };

const THINKING_BYTES = { thinking: 22 * 1024 * 1024, thinking4: 4_000_000 };
const LINK_BYTES = 1.2 * 1024 * 1024;
const deltaChars = Number(process.env.BENCH_DELTA_CHARS ?? 2048);
const queue: PayloadAnswer[] = [];
let served = 0;

/** Reasoning prose: sentences and paragraphs, as a model thinks aloud. */
function thinkingText(bytes: number): string {
  const sentences = ['Let me look at how the parser handles the nested case.', 'The test fails because the offset is counted twice.', 'I should check whether the cache is invalidated after the write.', 'That explains the off-by-one in the second branch.'];
  const out: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const piece = `${sentences[i % sentences.length]}${i % 7 === 6 ? '\n\n' : ' '}`;
    out.push(piece);
    size += piece.length;
  }
  return out.join('').slice(0, bytes);
}

/** Markdown whose text cites references defined below it, the definitions being most of its bytes. */
function linkReferenceMarkdown(bytes: number): string {
  const lines: string[] = ['# Sources', '', 'The findings below cite [the first source][r0], [another][r1] and [r2].', ''];
  let size = lines.join('\n').length;
  for (let i = 0; size < bytes; i++) {
    const line = i % 20 === 0 ? `\nSee [entry ${i}][r${i}] and [entry ${i + 1}][r${i + 1}] for details.\n` : `[r${i}]: http://example.com/docs/section/${i}/page-${i * 7}.html "Reference ${i}"`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

function events(answer: PayloadAnswer | 'summary', model: string): string {
  const n = ++served;
  const base = { id: `chatcmpl-payload-${n}`, object: 'chat.completion.chunk', created: 1_700_000_000 + n, model };
  const chunk = (delta: unknown, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: null });
  const out: unknown[] = [chunk({ role: 'assistant', content: '' })];
  const stream = (text: string, key: 'content' | 'reasoning_content') => {
    for (let at = 0; at < text.length; at += deltaChars) out.push(chunk({ [key]: text.slice(at, at + deltaChars) }));
  };
  if (answer === 'summary') out.push(chunk({ content: '## Goal\nAnswer the questions.\n## Progress\nRead the workspace.\n## Next\nAnswer the next question.' }));
  else if (answer === 'thinking' || answer === 'thinking4') {
    stream(thinkingText(THINKING_BYTES[answer]), 'reasoning_content');
    out.push(chunk({ content: 'The offset was counted twice; the fix is in the second branch.' }));
  } else if (answer === 'links') stream(linkReferenceMarkdown(LINK_BYTES), 'content');
  else out.push(chunk({ content: 'The workspace holds three files.' }));
  out.push(chunk({}, 'stop'));
  out.push({ ...base, choices: [], usage: { prompt_tokens: 1_000, completion_tokens: 12, total_tokens: 1_012 } });
  return out.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') + 'data: [DONE]\n\n';
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const chat = req.method === 'POST' && req.url === '/v1/chat/completions';
    const body = Buffer.concat(chunks).toString('utf8');
    const offersTools = chat && /(^|[^\\])"tools":\[/.test(body);
    const answer = !chat ? undefined : offersTools ? queue.shift() : 'summary';
    if (!answer) {
      process.send?.({ type: 'unexpected', url: `${req.method} ${req.url}` } satisfies ToParent);
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'bench model: no answer scripted', type: 'server_error', code: null } }));
      return;
    }
    const model = /"model":"([^"]*)"/.exec(body.slice(0, 512))?.[1] ?? 'bench';
    res.on('finish', () => process.send?.({ type: 'handled', answer } satisfies ToParent));
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.end(events(answer, model));
  });
});

process.on('message', (message: ToChild) => {
  if (message.type === 'script') queue.push(...message.answers);
  if (message.type === 'close') server.close(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.send?.({ type: 'listening', port: address.port } satisfies ToParent);
});
