import { toolResultMessage } from '../model/factories';
import type { Denial, Message, ToolCall } from '../model/message';
import type { BlobInfo, BlobStore } from '../ports/blobStore';
import type { ContextSettings } from '../settings';
import { scanOutput } from './scan';
import { readResultHint, storedResultHeader } from './storedResultHeader';
import { truncateMeasured } from './truncate';

const fmt = (n: number) => n.toLocaleString('en-US');

export interface RecordArgs {
  store: BlobStore;
  sessionId: string;
  call: ToolCall;
  output: string | Uint8Array;
  isError?: boolean;
  /** The user (or a hook) refused the call; the result says so. */
  denied?: Denial;
  settings: ContextSettings;
  now?: () => number;
  /** Told about the output stored whole, right after it is stored. */
  onStored?: (blob: BlobInfo) => void;
}

/**
 * Turns a tool's raw output into the message the model sees: small outputs stay as they
 * are; large ones are stored whole in the blob store and replaced by a reference with a head+tail
 * preview; binary output is described, never pasted. If the store fails, the output is truncated
 * inline with a note, so nothing is ever dropped silently.
 */
export async function recordToolResult(args: RecordArgs): Promise<Message> {
  const { settings, call } = args;
  // Hashing, line counting and UTF-8 checks run in slices: a 100 MB output never blocks the host.
  const scan = await scanOutput(args.output);
  const base = toolResultMessage(call, '', { isError: args.isError, denied: args.denied, createdAt: (args.now ?? Date.now)() });
  const binaryNote = `[binary output: ${fmt(scan.byteSize)} bytes, sha256 ${scan.sha256}; not shown]`;
  const encodingNote = scan.invalidUtf8 && !scan.binary ? '\n[The output is not valid UTF-8; invalid bytes are shown as \uFFFD. read_result returns the exact bytes.]' : '';
  const overThreshold = settings.offloadThresholdBytes > 0 && scan.byteSize > settings.offloadThresholdBytes;
  if (overThreshold || (scan.binary && settings.offloadThresholdBytes > 0)) {
    try {
      const info = await args.store.putBlob(args.sessionId, { toolName: call.name, toolCallId: call.id, content: scan.bytes, measured: scan });
      args.onStored?.(info);
      const header = storedResultHeader({ byteSize: info.byteSize, lineCount: info.lineCount, toolName: call.name, isError: Boolean(args.isError), refId: info.id });
      if (scan.binary) return { ...base, content: `${header}\n${binaryNote}`, meta: { ...base.meta, offloadRef: info.id } };
      const preview = truncateMeasured(scan, { maxLines: Math.min(settings.truncation.maxLines, 60), maxBytes: settings.offloadPreviewBytes });
      const content = `${header}\n${preview.text}${encodingNote}\n${readResultHint(info.id)}`;
      return { ...base, content, meta: { ...base.meta, offloadRef: info.id, truncated: preview.info } };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const truncated = scan.binary ? { text: binaryNote, info: undefined } : truncateMeasured(scan, settings.truncation);
      return { ...base, content: `${truncated.text}${encodingNote}\n[The full output could not be stored (${reason}); only this part is kept.]`, meta: { ...base.meta, truncated: truncated.info } };
    }
  }
  if (scan.binary) return { ...base, content: binaryNote };
  const truncated = truncateMeasured(scan, settings.truncation);
  return { ...base, content: `${truncated.text}${encodingNote}`, meta: { ...base.meta, truncated: truncated.info } };
}
