import type { Message } from '../../core/model/message';
import type { ChatToolCallView } from '../../protocol/chat';
import { readStoredResult } from '../../core/toolOutput/storedResultHeader';

const PREVIEW_CHARS = 2_000;

/** A tool call's card: its status from its result, and what the model saw of that result. */
export function toolView(call: { id: string; name: string; arguments: string }, result: Message | undefined): ChatToolCallView {
  const status: ChatToolCallView['status'] = !result
    ? 'running'
    : result.kind === 'aborted'
      ? 'aborted'
      : result.meta?.denied
        ? 'denied'
        : result.meta?.isError
          ? 'error'
          : 'done';
  const stored = result?.meta?.offloadRef ? readStoredResult(result.content) : undefined;
  return {
    callId: call.id,
    name: call.name,
    arguments: call.arguments,
    status,
    resultPreview: result ? (stored?.preview ?? result.content).slice(0, PREVIEW_CHARS) : undefined,
    truncated: Boolean(result?.meta?.truncated),
    offloadRef: result?.meta?.offloadRef,
    ...(stored ? { stored: { lines: stored.facts.lineCount, bytes: stored.facts.byteSize } } : {}),
  };
}
