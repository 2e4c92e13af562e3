import type { ToolCall } from '../model/message';
import { TranscriptBuilder, textOf } from './builder';
import { parsePythonLiteral } from './pythonLiteral';
import type { ImportedTranscript } from './types';

/** A field SWE-agent may write as a string holding a Python literal; other values as given. */
function pythonValueOf(value: unknown, field: string, path: string, b: TranscriptBuilder): unknown {
  if (typeof value !== 'string') return value;
  try {
    return parsePythonLiteral(value);
  } catch (error) {
    return b.fail(`${field} is not a valid Python list (${(error as Error).message})`, path);
  }
}

function toolCallsOf(value: unknown, path: string, b: TranscriptBuilder): ToolCall[] {
  if (value === undefined || value === null) return [];
  const list = pythonValueOf(value, 'tool_calls', path, b);
  if (!Array.isArray(list)) b.fail('tool_calls must be a list', path);
  return (list as Array<Record<string, unknown>>).map((c, k) => {
    const fn = c?.function as Record<string, unknown> | undefined;
    if (typeof c?.id !== 'string' || typeof fn?.name !== 'string') b.fail('a tool call needs an id and function.name', `${path}[${k}]`);
    return { id: c.id as string, name: fn!.name as string, arguments: typeof fn!.arguments === 'string' ? (fn!.arguments as string) : JSON.stringify(fn!.arguments ?? {}) };
  });
}

/** The call a tool message answers: `tool_call_ids` is a list, a Python list in a string, or one quoted id. */
function toolCallIdOf(value: unknown, path: string, b: TranscriptBuilder): string {
  const ids = pythonValueOf(value, 'tool_call_ids', path, b);
  const first = Array.isArray(ids) ? ids[0] : ids;
  return typeof first === 'string' && first ? first : b.fail('a tool message needs tool_call_ids', path);
}

/** SWE-agent `.traj`: `history` with system/user/assistant/tool messages and tool calls (a list, or a string with a Python list). */
export function importSweAgent(file: string, data: Record<string, unknown>): ImportedTranscript {
  const b = new TranscriptBuilder(file);
  if (!Array.isArray(data.history)) b.fail('history must be a list', 'history');
  (data.history as unknown[]).forEach((raw, i) => {
    const path = `history[${i}]`;
    const m = raw as Record<string, unknown>;
    if (!m || typeof m !== 'object') b.fail('each entry must be an object', path);
    const { text } = textOf(m.content, `${path}.content`, b);
    if (m.role === 'system') b.add('system', text);
    else if (m.role === 'user') b.add('user', text);
    else if (m.role === 'assistant') {
      const calls = toolCallsOf(m.tool_calls, `${path}.tool_calls`, b);
      b.add('assistant', text, { toolCalls: calls.length ? calls : undefined });
    } else if (m.role === 'tool') {
      const id = toolCallIdOf(m.tool_call_ids, `${path}.tool_call_ids`, b);
      b.add('tool', text, { toolCallId: id });
    } else b.fail(`unknown role ${JSON.stringify(m.role)}`, `${path}.role`);
  });
  b.finish();
  const info = (data.info ?? {}) as Record<string, unknown>;
  return { format: 'swe-agent', messages: b.messages, meta: { source: file, title: file, instanceId: typeof info.instance_id === 'string' ? info.instance_id : undefined, warnings: b.warnings, finalChange: typeof info.submission === 'string' ? info.submission : undefined } };
}
