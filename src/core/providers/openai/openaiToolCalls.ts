import { freshCallId } from '../../history/uniqueCallIds';
import type { ToolCall } from '../../model/message';
import type { ProviderEvent } from '../types';

interface PartialCall {
  id: string;
  name: string;
  args: string;
}

/**
 * Assembles streamed `delta.tool_calls` fragments into calls. OpenAI sends `index` on every
 * fragment and `id`/`name` on the first; some compatible servers omit `index` (a new `id` then
 * starts a call, a fragment without either continues the last one) or send whole calls at once.
 */
export class ToolCallAssembler {
  private readonly calls: PartialCall[] = [];
  private readonly byIndex = new Map<number, number>();

  get count(): number {
    return this.calls.length;
  }

  apply(fragments: unknown): ProviderEvent[] {
    if (!Array.isArray(fragments)) return [];
    const events: ProviderEvent[] = [];
    for (const raw of fragments) {
      if (!raw || typeof raw !== 'object') continue;
      const fragment = raw as { index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } };
      const id = typeof fragment.id === 'string' && fragment.id ? fragment.id : undefined;
      const name = typeof fragment.function?.name === 'string' ? fragment.function.name : undefined;
      const rawArgs = fragment.function?.arguments;
      const args = typeof rawArgs === 'string' ? rawArgs : rawArgs && typeof rawArgs === 'object' ? JSON.stringify(rawArgs) : '';

      let ordinal: number | undefined;
      if (typeof fragment.index === 'number') ordinal = this.byIndex.get(fragment.index);
      else if (id) ordinal = this.calls.findIndex((c) => c.id === id);
      else if (this.calls.length) ordinal = this.calls.length - 1;
      if (ordinal === undefined || ordinal < 0) {
        ordinal = this.calls.length;
        if (typeof fragment.index === 'number') this.byIndex.set(fragment.index, ordinal);
        const call: PartialCall = { id: id ?? this.generatedId(), name: name ?? '', args: '' };
        this.calls.push(call);
        events.push({ type: 'tool_call_start', index: ordinal, id: call.id, name: call.name });
      } else if (name && !this.calls[ordinal].name) {
        this.calls[ordinal].name = name;
      }
      if (args) {
        this.calls[ordinal].args += args;
        events.push({ type: 'tool_call_delta', index: ordinal, argumentsDelta: args });
      }
    }
    return events;
  }

  /** An id for a server that sent none: Tally's own, unique beyond this response. */
  private generatedId(): string {
    return freshCallId();
  }

  /** The calls as streamed; arguments are the model's raw text, `{}` when it sent none. */
  complete(): ToolCall[] {
    return this.calls.map((c) => ({ id: c.id, name: c.name, arguments: c.args || '{}' }));
  }
}
