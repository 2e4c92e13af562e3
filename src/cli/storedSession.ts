/** `tally inspect --session ID`: a stored session as text — messages in order, with reasoning, tool calls, results and each request's usage. */
import { statSync } from 'fs';
import type { Message } from '../core/model/message';
import type { SessionStore } from '../core/ports/sessionStore';
import { openStore } from '../node/store';

/** The store `tally inspect` reads: a folder that does not exist is an error, never a new empty store. */
export async function openStoreToInspect(folder: string): Promise<SessionStore & { close(): Promise<void> }> {
  let isFolder = false;
  try {
    isFolder = statSync(folder).isDirectory();
  } catch {
    throw new Error(`no store at ${folder}: the folder does not exist (tally exec writes its sessions to ~/.tally/store, or to the folder --store names)`);
  }
  if (!isFolder) throw new Error(`no store at ${folder}: it is not a folder`);
  return openStore(folder);
}

function indent(text: string, prefix = '    '): string {
  return text.split('\n').map((line) => `${prefix}${line}`).join('\n');
}

function messageText(message: Message): string {
  const lines: string[] = [];
  const hidden = message.agentVisible ? '' : ' (hidden from the model)';
  if (message.role === 'assistant') {
    lines.push(`assistant${hidden}:`);
    for (const block of message.reasoning ?? []) {
      const sealed = block.encryptedContent ? ', encrypted reasoning kept' : block.signature ? ', signed' : block.redactedData ? ', redacted' : '';
      lines.push(`  reasoning (${block.format}${sealed}):`, indent(block.text || '(no readable text)', '      '));
    }
    if (message.content.trim()) lines.push(indent(message.content));
    for (const call of message.toolCalls ?? []) lines.push(`  → ${call.name} ${call.arguments}  [${call.id}]`);
  } else if (message.role === 'tool') {
    const flags = [message.meta?.isError ? 'error' : '', message.meta?.denied ? 'denied' : ''].filter(Boolean).join(', ');
    lines.push(`  ← ${message.toolName ?? 'tool'} [${message.toolCallId ?? ''}]${flags ? ` (${flags})` : ''}${hidden}:`, indent(message.content, '      '));
  } else {
    lines.push(`${message.role}${hidden}:`, indent(message.content));
  }
  return lines.join('\n');
}

export async function renderStoredSession(store: SessionStore, sessionId: string): Promise<string> {
  const info = await store.getSession(sessionId);
  if (!info) throw new Error(`no session ${sessionId} in this store`);
  const [messages, usage, compactions] = await Promise.all([store.loadTranscript(sessionId), store.listRequestUsage(sessionId, { items: false }), store.listCompactionEvents(sessionId)]);
  const out = [`session ${info.id}: ${info.title}`, `${messages.length} messages, ${usage.length} requests, ${compactions.length} compactions`, ''];
  for (const message of messages) out.push(messageText(message));
  if (usage.length) out.push('', 'requests:');
  for (const record of usage) {
    const reasoning = record.reasoningTokens === undefined ? '' : ` (${record.reasoningTokens} reasoning)`;
    const cache = [record.cacheReadTokens ? `${record.cacheReadTokens} cached` : '', record.cacheWriteTokens ? `${record.cacheWriteTokens} written to cache` : ''].filter(Boolean).map((part) => `, ${part}`).join('');
    const output = record.reportedOutputTokens === undefined ? 'no output' : `${record.reportedOutputTokens} out${reasoning}`;
    const reported = record.reportedInputTokens === undefined ? 'no usage reported' : `reported ${record.reportedInputTokens} in, ${output}${cache}`;
    out.push(`  #${record.requestIndex} ${record.model}: estimated ${record.estimatedInputTokens} in; ${reported}`);
  }
  return `${out.join('\n')}\n`;
}
