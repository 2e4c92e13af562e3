import { abortedToolResult } from '../model/factories';
import type { Message } from '../model/message';

export interface NormalizeResult {
  messages: Message[];
  /** Synthetic "aborted" outputs added for calls that had none. */
  inserted: Message[];
  /** Outputs removed: orphans (no call) and duplicates. */
  removed: Message[];
}

/** The synthetic output for a call that never got one; its id follows the call's (call ids are unique per session). */
export function abortedFor(call: { id: string; name: string }, after: Message): Message {
  return abortedToolResult(call, 'this tool call did not return a result', { id: `aborted-${call.id}`, createdAt: after.createdAt });
}

/**
 * Makes a history valid for any provider: every visible tool call is answered right after its
 * assistant message (a synthetic "aborted" output when it never was), every output has its call,
 * outputs out of place are moved next to their call, duplicates dropped. Pure: input untouched.
 * Linear in the number of messages.
 */
export function normalizeHistory(messages: readonly Message[]): NormalizeResult {
  const callOwner = new Map<string, number>(); // call id → index of its assistant message
  messages.forEach((m, i) => {
    if (m.role === 'assistant' && m.agentVisible) for (const c of m.toolCalls ?? []) if (!callOwner.has(c.id)) callOwner.set(c.id, i);
  });
  const outputs = new Map<string, Message>();
  const removed: Message[] = [];
  for (const m of messages) {
    if (m.role !== 'tool' || !m.agentVisible) continue;
    const id = m.toolCallId ?? '';
    if (!callOwner.has(id) || outputs.has(id)) removed.push(m);
    else outputs.set(id, m);
  }
  const out: Message[] = [];
  const inserted: Message[] = [];
  messages.forEach((m, index) => {
    if (m.role === 'tool' && m.agentVisible) return; // placed with their call below
    out.push(m);
    if (m.role !== 'assistant' || !m.agentVisible) return;
    for (const call of m.toolCalls ?? []) {
      if (callOwner.get(call.id) !== index) continue; // a repeated call id: answered after its first use
      const output = outputs.get(call.id);
      if (output) {
        out.push(output);
      } else {
        const aborted = abortedFor(call, m);
        out.push(aborted);
        inserted.push(aborted);
      }
    }
  });
  return { messages: out, inserted, removed };
}

/** One break of the pairing invariant, with the tool call it concerns. */
export interface PairingViolation {
  callId: string;
  /** 'unanswered': a call without an output; 'unexpected': an output its call did not ask for; 'orphan': an output with no call before it. */
  kind: 'unanswered' | 'unexpected' | 'orphan';
  /** Index in the visible messages. */
  index: number;
  text: string;
}

/** Breaks of the pairing invariant in what would be sent (empty when valid). */
export function pairingViolations(messages: readonly Message[]): PairingViolation[] {
  const violations: PairingViolation[] = [];
  const visible = messages.filter((m) => m.agentVisible);
  for (let i = 0; i < visible.length; i++) {
    const m = visible[i];
    if (m.role === 'assistant' && m.toolCalls?.length) {
      const expected = new Set(m.toolCalls.map((c) => c.id));
      let j = i + 1;
      while (j < visible.length && visible[j].role === 'tool') {
        const id = visible[j].toolCallId ?? '';
        if (!expected.has(id)) violations.push({ callId: id, kind: 'unexpected', index: j, text: `message ${j} answers call "${id}", which message ${i} did not make or already got` });
        expected.delete(id);
        j++;
      }
      for (const id of expected) violations.push({ callId: id, kind: 'unanswered', index: i, text: `call "${id}" of message ${i} has no output` });
      i = j - 1;
    } else if (m.role === 'tool') {
      const id = m.toolCallId ?? '';
      violations.push({ callId: id, kind: 'orphan', index: i, text: `message ${i} is a tool output ("${id}") without a call before it` });
    }
  }
  return violations;
}

/** Human-readable violations of the pairing invariant in what would be sent (empty when valid). */
export function validateHistory(messages: readonly Message[]): string[] {
  return pairingViolations(messages).map((v) => v.text);
}
