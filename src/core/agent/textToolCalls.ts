/**
 * Tool calls a model wrote as text. Small local models behind OpenAI-compatible servers (Qwen,
 * Hermes, Llama, Mistral on Ollama or llama.cpp) often answer with the call in their own chat
 * format when the server does not turn it into a structured call:
 * - Hermes and Qwen 2.5: `<tool_call>{"name": "read_file", "arguments": {…}}</tool_call>`;
 * - Qwen 3 coder: `<tool_call><function=read_file><parameter=path>a.ts</parameter></function></tool_call>`;
 * - Llama 3.1: `<|python_tag|>{"name": "read_file", "parameters": {…}}`, or that JSON alone;
 * - Mistral: `[TOOL_CALLS] [{"name": "read_file", "arguments": {…}}]`.
 * A reply that is nothing but such calls, each naming a tool the request offered, is read as those
 * calls. A reply that only contains such markup is left as text, and said to be a call written as text.
 */

export interface TextToolCall {
  name: string;
  /** The arguments as JSON text, as a structured call carries them. */
  arguments: string;
}

export type TextToolCallReading =
  | { kind: 'calls'; calls: TextToolCall[] }
  | { kind: 'written'; sample: string }
  | { kind: 'none' };

const MARKUP = /<tool_call>|<\|python_tag\|>|\[TOOL_CALLS\]|<function=[\w.-]+>/;

function record(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** `{"name", "arguments" | "parameters"}` as a call, when the name is offered and the arguments are an object. */
function callOf(value: unknown, offered: ReadonlySet<string>): TextToolCall | undefined {
  const call = record(value);
  const name = typeof call?.name === 'string' ? call.name : undefined;
  if (!call || !name || !offered.has(name)) return undefined;
  const raw = call.arguments ?? call.parameters ?? {};
  const args = typeof raw === 'string' ? record(parseJson(raw)) : record(raw);
  return args ? { name, arguments: JSON.stringify(args) } : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Qwen 3's XML form inside one `<tool_call>`: a function and its parameters (a parameter that is JSON is read as JSON). */
function xmlCallOf(body: string, offered: ReadonlySet<string>): TextToolCall | undefined {
  const fn = /^\s*<function=([\w.-]+)>([\s\S]*?)<\/function>\s*$/.exec(body);
  if (!fn || !offered.has(fn[1])) return undefined;
  const args: Record<string, unknown> = {};
  let rest = fn[2];
  const parameter = /^\s*<parameter=([\w.-]+)>\n?([\s\S]*?)\n?<\/parameter>/;
  for (let found = parameter.exec(rest); found; found = parameter.exec(rest)) {
    const value = found[2];
    const parsed = parseJson(value);
    args[found[1]] = parsed !== undefined && typeof parsed !== 'string' ? parsed : value;
    rest = rest.slice(found[0].length);
  }
  return rest.trim() ? undefined : { name: fn[1], arguments: JSON.stringify(args) };
}

/** Every call of the reply, or undefined when any part of it is not a call of an offered tool. */
function readAll(text: string, offered: ReadonlySet<string>): TextToolCall[] | undefined {
  if (text.startsWith('<tool_call>')) {
    const calls: TextToolCall[] = [];
    let rest = text;
    while (rest) {
      const block = /^<tool_call>([\s\S]*?)(?:<\/tool_call>|$)\s*/.exec(rest);
      if (!block) return undefined;
      const call = callOf(parseJson(block[1].trim()), offered) ?? xmlCallOf(block[1], offered);
      if (!call) return undefined;
      calls.push(call);
      rest = rest.slice(block[0].length);
    }
    return calls;
  }
  const body = text.replace(/^<\|python_tag\|>/, '').replace(/^\[TOOL_CALLS\]/, '').trim();
  const parsed = parseJson(body);
  const list = Array.isArray(parsed) ? parsed : [parsed];
  const calls = list.map((c) => callOf(c, offered));
  return calls.length && calls.every((c): c is TextToolCall => c !== undefined) ? calls : undefined;
}

/** `text`: a reply that came without structured calls; `offered`: the tools the request offered. */
export function readTextToolCalls(text: string, offered: ReadonlySet<string>): TextToolCallReading {
  const trimmed = text.replace(/^\s*<think>[\s\S]*?<\/think>/, '').trim();
  if (!trimmed || offered.size === 0) return { kind: 'none' };
  const whole = /^[[{<]/.test(trimmed) ? readAll(trimmed, offered) : undefined;
  if (whole) return { kind: 'calls', calls: whole };
  const markup = MARKUP.exec(trimmed);
  return markup ? { kind: 'written', sample: trimmed.slice(markup.index, markup.index + 120) } : { kind: 'none' };
}
