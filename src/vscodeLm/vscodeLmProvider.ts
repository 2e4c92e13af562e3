import * as vscode from 'vscode';
import type { Message } from '../core/model/message';
import { freshCallId } from '../core/history/uniqueCallIds';
import { ProviderError } from '../core/providers/errors';
import { classifyLanguageModelError } from '../core/providers/languageModelErrors';
import type { ChatProvider, ProviderEvent, ProviderRequest } from '../core/providers/types';
import { languageModelTool } from '../core/providers/toolWireForms';

function parseInput(raw: string): object {
  try {
    const value = JSON.parse(raw);
    return value && typeof value === 'object' && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

/** Maps Tally's history to VS Code LM messages: system text first, tool results as user parts. */
export function toLanguageModelMessages(request: ProviderRequest): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  const system = request.system.map((b) => b.text).join('\n\n');
  if (system) out.push(vscode.LanguageModelChatMessage.User(system));
  let pendingResults: vscode.LanguageModelToolResultPart[] = [];
  const flush = () => {
    if (pendingResults.length) out.push(vscode.LanguageModelChatMessage.User(pendingResults));
    pendingResults = [];
  };
  for (const m of request.messages as Message[]) {
    if (m.role === 'tool') {
      pendingResults.push(new vscode.LanguageModelToolResultPart(m.toolCallId ?? '', [new vscode.LanguageModelTextPart(m.content)]));
      continue;
    }
    flush();
    if (m.role === 'assistant') {
      const parts: Array<vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart> = [];
      if (m.content) parts.push(new vscode.LanguageModelTextPart(m.content));
      for (const call of m.toolCalls ?? []) parts.push(new vscode.LanguageModelToolCallPart(call.id, call.name, parseInput(call.arguments)));
      out.push(vscode.LanguageModelChatMessage.Assistant(parts.length ? parts : ' '));
    } else {
      out.push(vscode.LanguageModelChatMessage.User(m.content));
    }
  }
  flush();
  return out;
}

function classify(error: unknown): ProviderError {
  const message = error instanceof Error ? error.message : String(error);
  return classifyLanguageModelError({ message, code: error instanceof vscode.LanguageModelError ? error.code : undefined });
}

/** VS Code's Language Model API (Copilot and other installed models) behind Tally's provider interface. */
export class VsCodeLmProvider implements ChatProvider {
  readonly id = 'vscode-lm';

  constructor(private readonly model: vscode.LanguageModelChat) {}

  async *stream(request: ProviderRequest, signal?: AbortSignal): AsyncIterable<ProviderEvent> {
    const source = new vscode.CancellationTokenSource();
    const onAbort = () => source.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      let response: vscode.LanguageModelChatResponse;
      try {
        response = await this.model.sendRequest(
          toLanguageModelMessages(request),
          {
            justification: 'Tally sends your chat to the model you picked.',
            tools: request.tools.map(languageModelTool),
          },
          source.token,
        );
      } catch (error) {
        throw classify(error);
      }
      let calls = 0;
      try {
        for await (const part of response.stream) {
          if (part instanceof vscode.LanguageModelTextPart) yield { type: 'text', text: part.value };
          else if (part instanceof vscode.LanguageModelToolCallPart) {
            yield { type: 'tool_call', call: { id: part.callId || freshCallId(), name: part.name, arguments: JSON.stringify(part.input ?? {}) } };
            calls++;
          }
        }
      } catch (error) {
        if (signal?.aborted) throw new ProviderError('cancelled', 'cancelled');
        throw new ProviderError('stream_dropped', `The model's answer broke off: ${error instanceof Error ? error.message : String(error)}`);
      }
      yield { type: 'done', stopReason: calls > 0 ? 'tool_use' : 'end_turn' };
    } finally {
      signal?.removeEventListener('abort', onAbort);
      source.dispose();
    }
  }
}
