import { createHash } from 'crypto';
import { newId } from '../model/ids';
import type { Message, ToolCall } from '../model/message';
import type { SessionStore } from '../persistence/types';
import type { ContextSettings } from '../settings';
import { looksBinary } from './binary';
import { truncateOutput } from './truncate';

const fmt = (n: number) => n.toLocaleString('en-US');

export interface RecordArgs {
  store: SessionStore;
  sessionId: string;
  call: ToolCall;
  output: string | Uint8Array;
  isError?: boolean;
  settings: ContextSettings;
  now?: () => number;
}

/**
 * Turns a tool's raw output into the message the model sees (F5, F6): small outputs stay as they
 * are; large ones are stored whole in the blob store and replaced by a reference with a head+tail
 * preview; binary output is described, never pasted. If the store fails, the output is truncated
 * inline with a note, so nothing is ever dropped silently.
 */
export async function recordToolResult(args: RecordArgs): Promise<Message> {
  const { settings, call } = args;
  const bytes = typeof args.output === 'string' ? Buffer.from(args.output, 'utf8') : Buffer.from(args.output);
  const base: Message = {
    id: newId('m'),
    role: 'tool',
    kind: 'tool_result',
    content: '',
    toolCallId: call.id,
    toolName: call.name,
    agentVisible: true,
    userVisible: true,
    createdAt: (args.now ?? Date.now)(),
    meta: args.isError ? { isError: true } : {},
  };
  const binary = looksBinary(bytes);
  const overThreshold = settings.offloadThresholdBytes > 0 && bytes.length > settings.offloadThresholdBytes;
  if (overThreshold || (binary && settings.offloadThresholdBytes > 0)) {
    try {
      const info = await args.store.putBlob(args.sessionId, { toolName: call.name, toolCallId: call.id, content: bytes });
      const header = `[Tool result stored — ${fmt(info.byteSize)} bytes, ${fmt(info.lineCount)} lines from "${call.name}"${args.isError ? ' (error)' : ''}; ref_id="${info.id}"]`;
      if (binary) {
        return { ...base, content: `${header}\n[binary output: ${fmt(bytes.length)} bytes, sha256 ${info.sha256}; not shown]`, meta: { ...base.meta, offloadRef: info.id } };
      }
      const preview = truncateOutput(bytes, { maxLines: Math.min(settings.truncation.maxLines, 60), maxBytes: settings.offloadPreviewBytes });
      const content = `${header}\n${preview.text}\n[Use read_result with ref_id="${info.id}", offset and limit (bytes) to read the full output.]`;
      return { ...base, content, meta: { ...base.meta, offloadRef: info.id, truncated: preview.info } };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const truncated = truncateOutput(binary ? `[binary output: ${fmt(bytes.length)} bytes, sha256 ${sha256(bytes)}]` : bytes, settings.truncation);
      return { ...base, content: `${truncated.text}\n[The full output could not be stored (${reason}); only this part is kept.]`, meta: { ...base.meta, truncated: truncated.info } };
    }
  }
  if (binary) return { ...base, content: `[binary output: ${fmt(bytes.length)} bytes, sha256 ${sha256(bytes)}; not shown]` };
  const truncated = truncateOutput(bytes, settings.truncation);
  return { ...base, content: truncated.text, meta: { ...base.meta, truncated: truncated.info } };
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
