import type { ToolCall } from '../model/message';
import { TranscriptBuilder, textOf } from './builder';
import type { ImportedTranscript } from './types';

/** Anthropic Messages: user/assistant turns with text, tool_use, tool_result and image blocks. */
export function importAnthropicMessages(file: string, records: unknown[], system?: unknown): ImportedTranscript {
  const b = new TranscriptBuilder(file);
  if (system !== undefined) b.add('system', textOf(system, 'system', b).text);
  records.forEach((raw, i) => {
    const path = `messages[${i}]`;
    const m = raw as Record<string, unknown>;
    if (!m || typeof m !== 'object') b.fail('each message must be an object', path);
    const role = m.role === 'user' || m.role === 'assistant' ? m.role : b.fail(`unknown role ${JSON.stringify(m.role)}`, `${path}.role`);
    if (typeof m.content === 'string') {
      b.add(role, m.content);
      return;
    }
    if (!Array.isArray(m.content)) b.fail('content must be a string or a list of blocks', `${path}.content`);
    let text = '';
    let images = 0;
    const calls: ToolCall[] = [];
    for (const [k, block] of (m.content as Array<Record<string, unknown>>).entries()) {
      const at = `${path}.content[${k}]`;
      if (!block || typeof block !== 'object') b.fail('a block must be an object', at);
      if (block.type === 'text') text += (text ? '\n' : '') + String(block.text ?? '');
      else if (block.type === 'image') images++;
      else if (block.type === 'tool_use') {
        if (typeof block.id !== 'string' || typeof block.name !== 'string') b.fail('tool_use needs id and name', at);
        calls.push({ id: block.id as string, name: block.name as string, arguments: JSON.stringify(block.input ?? {}) });
      } else if (block.type === 'tool_result') {
        if (typeof block.tool_use_id !== 'string') b.fail('tool_result needs tool_use_id', at);
        const result = textOf(block.content, `${at}.content`, b);
        b.add('tool', result.text, { toolCallId: block.tool_use_id as string, meta: block.is_error ? { isError: true } : undefined });
      }
    }
    if (role === 'assistant') b.add('assistant', text, { toolCalls: calls.length ? calls : undefined });
    else if (text || images) b.add('user', text, { meta: images ? { images } : undefined });
  });
  b.finish();
  return { format: 'anthropic', messages: b.messages, meta: { source: file, title: file, warnings: b.warnings } };
}
