// `npm run fake-model`: a scripted local model for trying Tally with no key and no network.
// It speaks the OpenAI Chat Completions wire format (streaming, tool calls, usage with cached
// tokens) on 127.0.0.1 and follows a small script: asked to list, read, edit or run something, it
// calls Tally's list_files / read_file / edit_file / run_command tools on your workspace (an edit
// reads the file first, then adds one comment line at its top, so the diff approval shows), then
// describes the result in markdown. Asked for a compaction summary, it answers one in the shape of
// Tally's local summarizer. Every reply says "scripted model" so nobody mistakes it for a real model.
//
//   npm run fake-model                    # http://127.0.0.1:11435/v1
//   FAKE_MODEL_PORT=9000 npm run fake-model
import { createServer } from 'http';
import { pathToFileURL } from 'url';

export const MODEL_ID = 'scripted-model';
const LABEL = '[scripted model]';

/** ~4 characters a token: close enough for a demo, and the same rule for every request. */
const tokensOf = (text) => Math.ceil(text.length / 4);

/**
 * Text Tally sends as a user message that the user did not write: the request's dynamic note
 * (nested AGENTS.md files that apply, the context note, the deferred-tools note), after the conversation.
 */
const NOTE = /^(?:Instructions from |Project instructions \(|\[Context: |\[\d+ tools? deferred )/;

function lastUserText(messages) {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'user') continue;
    const text = typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => p.text ?? '').join('');
    // Tally's notes after the conversation (plan mode, nested AGENTS.md) are not what the user asked.
    if (NOTE.test(text)) continue;
    return text;
  }
  return '';
}

const HELP = [
  `${LABEL} Hello! I am a **scripted** stand-in for a model, so you can try Tally with no key and no network. I only know a few moves:`,
  '',
  '- **"list files"**: I call `list_files` on your workspace',
  '- **"read README.md"**: I call `read_file` on that path',
  '- **"edit README.md"**: I read it, then call `edit_file` to add a comment line at its top (Tally shows the diff and asks first)',
  '- **"run ls -la"**: I call `run_command` (Tally asks for your approval first)',
  '- **"think about the tests"**: I think first (the chat shows my thinking, folded), then answer',
  '- **"delegate list files"**: I hand the task to a subagent with `delegate`; it works in its own context window and reports back',
  '- **"todo"**: I keep a three-step todo list with `update_todos` and tick the steps off one by one (watch the todo card)',
  '- **"fetch https://example.com"**: I call `fetch_url` (Tally asks per site first) and describe the page it returns',
  '- **an image** (paste one, or attach it with `#`; first set `"tally.models.images": { "scripted-model": true }`, since my name does not say I see images): I say what I received',
  '- **"plan"**: I look around and answer with a plan of steps (try it with plan mode on: the switch beside Send, or `tally exec --plan`); approve the plan and I say which step I start from',
  '',
  '| You type | Tool I call |',
  '| :-- | :-- |',
  '| list files | `list_files` |',
  '| read <path> | `read_file` |',
  '| edit <path> | `read_file`, then `edit_file` |',
  '| run <command> | `run_command` |',
  '| think about <topic> | none: I think, then answer |',
  '| delegate <task> | `delegate` |',
  '| todo | `update_todos`, three times |',
  '| fetch <address> | `fetch_url` |',
  '| plan | `list_files`, then a plan |',
  '',
  'A code block, to try **Copy** and **Insert at cursor**:',
  '',
  '```ts',
  'export function greet(name: string): string {',
  '  return `Hello, ${name}!`;',
  '}',
  '```',
  '',
  'Open the inspector (click the context meter) to see what each request carried. More about Tally: [the VS Code API docs](https://code.visualstudio.com/api).',
].join('\n');

const EDIT_REQUEST = /^(?:please\s+)?(?:edit|change|modify)\s+(\S+)/i;
const SUMMARY_SYSTEM = 'You write checkpoints of a coding agent session';

function textOf(message) {
  return typeof message?.content === 'string' ? message.content : (message?.content ?? []).map((p) => p.text ?? '').join('');
}

/** A comment line in the file's own syntax, so the scripted edit leaves the file valid. */
function commentLine(path) {
  const text = "Edited by Tally's scripted model";
  if (/\.(md|markdown|html?|xml|svg|vue)$/i.test(path)) return `<!-- ${text} -->`;
  if (/\.(css|scss|less)$/i.test(path)) return `/* ${text} */`;
  if (/\.(c|cc|cpp|h|hpp|cs|go|java|js|jsx|mjs|cjs|ts|tsx|kt|rs|swift|dart|scala|php)$/i.test(path)) return `// ${text}`;
  if (/\.(sql|lua|hs)$/i.test(path)) return `-- ${text}`;
  return `# ${text}`;
}

/**
 * The edit once read_file answered: a comment line above the file's first lines (as few as match
 * only once). Undefined when the file has no text to anchor an edit on.
 */
function scriptedEdit(path, readOutput) {
  const lines = readOutput.split('\n').slice(1).map((line) => line.replace(/^\s*\d+ {2}/, ''));
  const text = lines.join('\n');
  for (let count = 1; count <= lines.length; count++) {
    const anchor = lines.slice(0, count).join('\n');
    if (!anchor.trim()) continue;
    if (text.indexOf(anchor) === text.lastIndexOf(anchor)) return { path, old_text: anchor, new_text: `${commentLine(path)}\n${anchor}` };
  }
  return undefined;
}

/** A string field of a tool call's (possibly cut) JSON arguments. */
function argument(args, key) {
  const match = new RegExp(`"${key}":\\s*"((?:[^"\\\\]|\\\\.)*)"`).exec(args);
  if (!match) return undefined;
  try {
    return JSON.parse(`"${match[1]}"`);
  } catch {
    return match[1];
  }
}

/**
 * A compaction summary in the fixed shape of Tally's local summarizer (checkpoint, episode or tool
 * digest), built from the messages the summary request renders ("[role]" blocks, "→ tool(args)" calls).
 */
export function scriptedSummary(prompt) {
  const messages = prompt.split(/\n(?=\[(?:user|assistant|tool|system)[\]: ])/).filter((block) => /^\[(?:user|assistant|tool|system)[\]: ]/.test(block));
  const calls = [...prompt.matchAll(/^ {2}→ (\w+)\((.*)\)$/gm)].map(([, name, args]) => ({ name, args }));
  const paths = (names) => [...new Set(calls.filter((c) => names.includes(c.name)).map((c) => argument(c.args, 'path')).filter(Boolean))];
  const read = paths(['read_file']);
  const changed = paths(['edit_file', 'write_file']);
  const commands = calls.filter((c) => c.name === 'run_command').map((c) => argument(c.args, 'command')).filter(Boolean).map((c) => `- \`${c}\` → ran`);
  const requests = messages.filter((block) => block.startsWith('[user]\n')).map((block) => block.slice('[user]\n'.length).split('\n  → ')[0].trim());
  const files = [changed.length ? `changed: ${changed.join(', ')}` : '', read.length ? `read: ${read.join(', ')}` : ''].filter(Boolean);
  if (prompt.startsWith('Summarize these tool calls')) {
    const count = calls.length;
    return [`[Digest of ${count} earlier tool call${count === 1 ? '' : 's'}; full outputs stay in the transcript]`, ...files.map((f) => f[0].toUpperCase() + f.slice(1)), ...commands].join('\n');
  }
  const heading = prompt.startsWith('Summarize this completed part') ? 'Episode summary' : 'Checkpoint';
  const lines = [`## ${heading} (scripted model's summary of ${messages.length} message${messages.length === 1 ? '' : 's'})`];
  // A checkpoint carries every heading Tally asks a model for, so Tally's check of its shape passes.
  lines.push('### Task', requests[0] ?? 'none stated');
  if (requests.length > 1 && requests[requests.length - 1] !== requests[0]) lines.push('### Latest request', requests[requests.length - 1]);
  lines.push('### Established', read.length ? `- files read: ${read.join(', ')}` : '- nothing yet');
  lines.push('### Changed', changed.length ? `- ${changed.join(', ')}` : '- no file');
  if (commands.length) lines.push('### Last commands', ...commands);
  lines.push('### Failed', '- nothing', '### Open questions', '- none', '### Next step', 'continue with the latest request');
  return lines.join('\n');
}

/** The scripts for thinking and delegating: a reply, or undefined when the request is for another script. */
function thinkingOrDelegation(messages, asked) {
  const last = messages[messages.length - 1];
  const previousCall = messages[messages.length - 2]?.tool_calls?.[0]?.function;
  if (last?.role === 'tool' && previousCall?.name === 'delegate') {
    return { text: `${LABEL} The subagent reported back:\n\n> ${textOf(last).split('\n').slice(0, 8).join('\n> ')}\n\nIts requests are in the inspector under Subagents.` };
  }
  if (last?.role === 'tool') return undefined;
  let match;
  if ((match = /^(?:please\s+)?delegate\s+(.+)$/is.exec(asked))) return { text: `${LABEL} Handing this to a subagent.`, call: { name: 'delegate', arguments: { task: match[1].trim() } } };
  if ((match = /^(?:please\s+)?think(?:\s+about)?\s*(.*)$/is.exec(asked))) {
    const topic = match[1].trim() || 'your request';
    return {
      reasoning: `The user asked me to think about ${topic}. I am a scripted model, so this thinking is scripted too: it shows how Tally folds a model's reasoning in the chat and counts its tokens. A real model would weigh the options here before answering.`,
      text: `${LABEL} I thought about ${topic} first (open **Thinking** above to read it). A real model's answer would follow from it.`,
    };
  }
  return undefined;
}

const TODO_STEPS = ['Look at the workspace', 'Change what the task needs', 'Check the change'];

/** The scripted todo list after `done` steps: those done, the next in progress, the rest pending. */
function todoList(done) {
  return TODO_STEPS.map((text, i) => ({ text, status: i < done ? 'done' : i === done ? 'in_progress' : 'pending' }));
}

/** The todo script: each answered update_todos call since the user's message ticks one more step off. */
function todoReply(messages) {
  const start = messages.findLastIndex((m) => m.role === 'user' && !textOf(m).startsWith('Instructions from '));
  const updates = messages.slice(start).filter((m) => m.role === 'assistant' && m.tool_calls?.some((c) => c.function?.name === 'update_todos')).length;
  if (updates > TODO_STEPS.length - 1) return { text: `${LABEL} All ${TODO_STEPS.length} steps are done: the todo card shows them struck through.` };
  return { text: `${LABEL} ${updates === 0 ? 'A todo list for this task.' : `Step ${updates} is done.`}`, call: { name: 'update_todos', arguments: { todos: todoList(updates) } } };
}

const PLAN = [
  `${LABEL} Here is my plan (I changed nothing):`,
  '',
  '1. Read the files the task names and the tests that cover them.',
  '2. Make the smallest change that does the task.',
  '3. Run the tests and fix what they report.',
  '',
  'Edit it, approve it to let me carry it out, or discard it.',
].join('\n');

/** The turn after Approve: the approved plan is the user item right before the message; the reply names its first step. */
function approvedPlanReply(messages, asked) {
  const at = messages.findLastIndex((m) => m.role === 'user' && textOf(m).includes(asked));
  const own = at >= 0 ? textOf(messages[at]) : '';
  // The plan is the message before the approval, or the start of the same one when a server joined them.
  const plan = own.startsWith(asked) ? (at > 0 ? textOf(messages[at - 1]) : '') : own.slice(0, own.lastIndexOf(asked));
  const first = plan.split('\n').find((line) => /^\s*1[.)]\s/.test(line))?.trim();
  return `${LABEL} Carrying out the plan you ${asked.startsWith('I edited') ? 'edited and ' : ''}approved${first ? `, from its first step: ${first}` : ''}. (I am scripted: I change nothing.)`;
}

/** The images of the user's latest message (Chat Completions `image_url` parts with data addresses): their media types. */
function imagesOfRequest(messages) {
  const at = messages.findLastIndex((m) => m.role === 'user' && !NOTE.test(textOf(m)));
  // An image can come in a message of its own right before the text (attachments are recorded first).
  const own = messages.slice(Math.max(0, at - 1), at + 1).filter((m) => m.role === 'user' && Array.isArray(m.content));
  return own.flatMap((m) => m.content.filter((p) => p.type === 'image_url').map((p) => /^data:([^;,]+)/.exec(p.image_url?.url ?? '')?.[1] ?? 'an image'));
}

function imageReply(types) {
  const kinds = [...new Set(types)].join(', ');
  return `${LABEL} I received **${types.length} image${types.length === 1 ? '' : 's'}** (${kinds}). I am scripted and cannot see ${types.length === 1 ? 'it' : 'them'}; a real model would describe ${types.length === 1 ? 'it' : 'them'} here. Its cost is on the chip before you sent it and in the inspector's items.`;
}

/** What the script does next: a tool call for a fresh request, a summary once the tool answered. */
export function scriptedReply(messages) {
  const scripted = messages[0]?.role === 'system' && textOf(messages[0]).startsWith(SUMMARY_SYSTEM) ? undefined : thinkingOrDelegation(messages, lastUserText(messages).trim());
  if (scripted) return scripted;
  if (messages[0]?.role === 'system' && textOf(messages[0]).startsWith(SUMMARY_SYSTEM)) return { text: scriptedSummary(lastUserText(messages)) };
  const last = messages[messages.length - 1];
  const asked = lastUserText(messages).trim();
  const editing = EDIT_REQUEST.exec(asked);
  const previousCall = messages[messages.length - 2]?.tool_calls?.[0]?.function;
  if (last?.role === 'tool' && editing && previousCall?.name === 'read_file') {
    const edit = last.content && !/^\S+ is a (?:directory|binary file)/.test(textOf(last)) ? scriptedEdit(editing[1], textOf(last)) : undefined;
    if (edit) return { text: `${LABEL} Adding a comment line at the top of \`${edit.path}\`. Tally shows the diff: accept or reject it.`, call: { name: 'edit_file', arguments: edit } };
    return { text: `${LABEL} I could not find text in \`${editing[1]}\` to anchor an edit on, so I made no edit:\n\n${textOf(last).split('\n')[0]}` };
  }
  if (/^(?:please\s+)?(?:todo|todos|keep a todo list)\b/i.test(asked)) return todoReply(messages);
  if (/^(?:please\s+)?plan\b/i.test(asked)) {
    // Plan mode's note may follow the tool's answer: the plan comes once any tool answered since the request.
    const start = messages.map((m) => m.role).lastIndexOf('assistant');
    const answered = start >= 0 && messages.slice(start).some((m) => m.role === 'tool');
    return answered ? { text: PLAN } : { text: `${LABEL} Looking around before I plan.`, call: { name: 'list_files', arguments: { path: '.', depth: 1 } } };
  }
  if (/^I (?:edited and )?approved the plan above\./.test(asked)) return { text: approvedPlanReply(messages, asked) };
  if (last?.role === 'tool') {
    const output = typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
    const lines = output.split('\n');
    const head = lines.slice(0, 12).join('\n').replace(/```/g, "'''");
    return {
      text: `${LABEL} The tool answered with **${lines.length} lines** (${output.length.toLocaleString('en-US')} characters). The first ones:\n\n\`\`\`text\n${head}\n\`\`\`\n\nAsk me to *read* a file or *run* a command next.`,
    };
  }
  const text = asked;
  let match;
  const images = imagesOfRequest(messages);
  if (images.length) return { text: imageReply(images) };
  if ((match = /^(?:please\s+)?fetch\s+(\S+)/i.exec(text))) return { text: `${LABEL} Fetching \`${match[1]}\`.`, call: { name: 'fetch_url', arguments: { url: match[1] } } };
  if (editing) return { text: `${LABEL} Reading \`${editing[1]}\` first, to edit it.`, call: { name: 'read_file', arguments: { path: editing[1] } } };
  if ((match = /^(?:please\s+)?run\s+(.+)$/is.exec(text))) return { text: `${LABEL} Running \`${match[1].trim()}\`.`, call: { name: 'run_command', arguments: { command: match[1].trim() } } };
  if ((match = /^(?:please\s+)?(?:read|open|show)\s+(\S+)/i.exec(text))) return { text: `${LABEL} Reading \`${match[1]}\`.`, call: { name: 'read_file', arguments: { path: match[1] } } };
  if (/\b(list|files|ls)\b/i.test(text)) return { text: `${LABEL} Listing the workspace.`, call: { name: 'list_files', arguments: { path: '.', depth: 2 } } };
  return { text: HELP };
}

function* pieces(text, size) {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

export async function startFakeModel({ port = 11435, host = '127.0.0.1', delayMs = 15 } = {}) {
  let served = 0;
  let previousPrompt = '';
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${host}`);
    const json = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && url.pathname === '/v1/models') {
      return json(200, { object: 'list', data: [{ id: MODEL_ID, object: 'model', created: 1_700_000_000, owned_by: 'tally', max_model_len: 32_768 }] });
    }
    if (req.method !== 'POST' || url.pathname !== '/v1/chat/completions') {
      return json(404, { error: { message: `Invalid URL (${req.method} ${url.pathname})`, type: 'invalid_request_error', param: null, code: null } });
    }
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      let body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return json(400, { error: { message: 'We could not parse the JSON body of your request.', type: 'invalid_request_error', param: null, code: null } });
      }
      if (!Array.isArray(body.messages) || body.messages.length === 0) {
        return json(400, { error: { message: "Invalid type for 'messages': expected an array with at least one element.", type: 'invalid_request_error', param: 'messages', code: null } });
      }
      const n = ++served;
      const reply = scriptedReply(body.messages);
      // Usage as a provider with automatic prompt caching reports it: the prefix shared with the last request was cached.
      const prompt = JSON.stringify([body.tools ?? [], body.messages]);
      let shared = 0;
      while (shared < prompt.length && shared < previousPrompt.length && prompt[shared] === previousPrompt[shared]) shared++;
      previousPrompt = prompt;
      const callArgs = reply.call ? JSON.stringify(reply.call.arguments) : '';
      const usage = {
        prompt_tokens: tokensOf(prompt),
        completion_tokens: tokensOf((reply.reasoning ?? '') + reply.text + callArgs),
        ...(reply.reasoning ? { completion_tokens_details: { reasoning_tokens: tokensOf(reply.reasoning) } } : {}),
        prompt_tokens_details: { cached_tokens: Math.floor(tokensOf(prompt.slice(0, shared)) / 64) * 64 },
      };
      usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
      const callId = `call_scripted_${n}_${Math.random().toString(36).slice(2, 8)}`;
      const base = { id: `chatcmpl-scripted-${n}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body.model ?? MODEL_ID };
      if (!body.stream) {
        const message = { role: 'assistant', content: reply.text, ...(reply.call ? { tool_calls: [{ id: callId, type: 'function', function: { name: reply.call.name, arguments: callArgs } }] } : {}) };
        return json(200, { ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: reply.call ? 'tool_calls' : 'stop' }], usage });
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      const includeUsage = body.stream_options?.include_usage === true;
      const send = (data) => res.write(`data: ${JSON.stringify(data)}\n\n`);
      const chunk = (delta, finish = null) => send({ ...base, choices: [{ index: 0, delta, finish_reason: finish }], ...(includeUsage ? { usage: null } : {}) });
      const pause = () => new Promise((r) => setTimeout(r, delayMs));
      chunk({ role: 'assistant', content: '' });
      for (const reasoning_content of pieces(reply.reasoning ?? '', 12)) {
        chunk({ reasoning_content });
        await pause();
      }
      for (const content of pieces(reply.text, 12)) {
        chunk({ content });
        await pause();
      }
      if (reply.call) {
        chunk({ tool_calls: [{ index: 0, id: callId, type: 'function', function: { name: reply.call.name, arguments: '' } }] });
        for (const args of pieces(callArgs, 16)) chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] });
      }
      chunk({}, reply.call ? 'tool_calls' : 'stop');
      if (includeUsage) send({ ...base, choices: [], usage });
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address();
  return {
    url: `http://${host}:${address.port}/v1`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const port = Number(process.env.FAKE_MODEL_PORT ?? 11435);
  const { url } = await startFakeModel({ port }).catch((error) => {
    console.error(`fake-model: could not listen on 127.0.0.1:${port}: ${error.message} (set FAKE_MODEL_PORT to another port)`);
    process.exit(1);
  });
  console.log(`Scripted model listening at ${url} (model "${MODEL_ID}"). Ctrl-C stops it.`);
  console.log('In VS Code, set these user settings (or run "Tally: Select Model"):');
  console.log(`  "tally.provider": "openai-compatible",`);
  console.log(`  "tally.baseUrl": "${url}",`);
  console.log(`  "tally.model": "${MODEL_ID}"`);
  console.log('To try images too: "tally.models.images": { "scripted-model": true }');
  console.log('Then type "list files", "read README.md", "edit README.md", "run ls" or anything else in the chat.');
}
