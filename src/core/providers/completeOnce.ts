import type { ToolCall } from '../model/message';
import type { ChatProvider, ProviderRequest, ReportedUsage, StopReason } from './types';

export interface CompletedResponse {
  text: string;
  calls: ToolCall[];
  usage?: ReportedUsage;
  stopReason: StopReason;
}

/** Runs one request to the end and collects it (summaries, one-shot prompts). Throws ProviderError. */
export async function completeOnce(provider: ChatProvider, request: ProviderRequest, signal?: AbortSignal): Promise<CompletedResponse> {
  let text = '';
  const calls: ToolCall[] = [];
  let usage: ReportedUsage | undefined;
  let stopReason: StopReason = 'end_turn';
  for await (const event of provider.stream(request, signal)) {
    if (event.type === 'text') text += event.text;
    else if (event.type === 'tool_call') calls.push(event.call);
    else if (event.type === 'usage') usage = { ...usage, ...event.usage };
    else if (event.type === 'done') stopReason = event.stopReason;
  }
  return { text, calls, usage, stopReason };
}
