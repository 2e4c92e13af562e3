import { findBashBlock } from './bashBlock';
import { TranscriptBuilder, textOf } from './builder';
import type { ImportedTranscript } from './types';

const OBSERVATION = /^\s*<returncode>\s*(-?\d+)\s*<\/returncode>/;

/**
 * mini-swe-agent `.traj.json`: each assistant message holds one ```bash block; the next user
 * message starting with <returncode> is its output. They become a `bash` tool call and its result.
 */
export function importMiniSweAgent(file: string, data: Record<string, unknown>): ImportedTranscript {
  const b = new TranscriptBuilder(file);
  if (!Array.isArray(data.messages)) b.fail('messages must be a list', 'messages');
  let pending: string | undefined;
  (data.messages as unknown[]).forEach((raw, i) => {
    const path = `messages[${i}]`;
    const m = raw as Record<string, unknown>;
    if (!m || typeof m !== 'object') b.fail('each message must be an object', path);
    const { text } = textOf(m.content, `${path}.content`, b);
    if (m.role === 'system') b.add('system', text);
    else if (m.role === 'assistant') {
      const block = findBashBlock(text);
      if (block) {
        pending = `bash${i}`;
        const prose = (text.slice(0, block.start) + text.slice(block.end)).trim();
        b.add('assistant', prose, { toolCalls: [{ id: pending, name: 'bash', arguments: JSON.stringify({ command: block.command }) }] });
      } else {
        pending = undefined;
        b.add('assistant', text);
      }
    } else if (m.role === 'user') {
      const observation = OBSERVATION.exec(text);
      if (observation && pending) {
        b.add('tool', text, { toolCallId: pending, meta: Number(observation[1]) !== 0 ? { isError: true } : undefined });
        pending = undefined;
      } else b.add('user', text);
    } else b.fail(`unknown role ${JSON.stringify(m.role)}`, `${path}.role`);
  });
  b.finish();
  const info = (data.info ?? {}) as Record<string, unknown>;
  const config = (info.config ?? {}) as Record<string, unknown>;
  const model = ((config.model ?? {}) as Record<string, unknown>).model_name;
  return {
    format: 'mini-swe-agent',
    messages: b.messages,
    meta: { source: file, title: String(data.instance_id ?? file), instanceId: typeof data.instance_id === 'string' ? data.instance_id : undefined, model: typeof model === 'string' ? model : undefined, warnings: b.warnings, finalChange: typeof info.submission === 'string' ? info.submission : undefined },
  };
}
