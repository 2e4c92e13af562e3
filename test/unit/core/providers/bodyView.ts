/** A format-neutral view of a request body as a fake server received it, for shared assertions. */

export interface TurnView {
  role: 'user' | 'assistant' | 'results';
  text: string;
  callIds: string[];
  resultIds: string[];
  errorResultIds: string[];
}

export interface BodyView {
  system: string;
  cacheBreakpoints: number;
  turns: TurnView[];
  toolNames: string[];
  maxTokens: number | undefined;
}

function turn(role: TurnView['role']): TurnView {
  return { role, text: '', callIds: [], resultIds: [], errorResultIds: [] };
}

export function anthropicView(body: any): BodyView {
  let breakpoints = 0;
  const count = (b: any) => {
    if (b?.cache_control) breakpoints++;
  };
  (body.system ?? []).forEach(count);
  const turns: TurnView[] = [];
  for (const m of body.messages) {
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    blocks.forEach(count);
    const results = blocks.filter((b: any) => b.type === 'tool_result');
    if (results.length) {
      const r = turn('results');
      r.resultIds = results.map((b: any) => b.tool_use_id);
      r.errorResultIds = results.filter((b: any) => b.is_error).map((b: any) => b.tool_use_id);
      turns.push(r);
    }
    const rest = blocks.filter((b: any) => b.type !== 'tool_result');
    if (rest.length) {
      const t = turn(m.role);
      t.text = rest.filter((b: any) => b.type === 'text').map((b: any) => b.text).join('\n');
      t.callIds = rest.filter((b: any) => b.type === 'tool_use').map((b: any) => b.id);
      turns.push(t);
    }
  }
  return {
    system: (body.system ?? []).map((b: any) => b.text).join('\n\n'),
    cacheBreakpoints: breakpoints,
    turns,
    toolNames: (body.tools ?? []).map((t: any) => t.name),
    maxTokens: body.max_tokens,
  };
}

export function openaiView(body: any): BodyView {
  const turns: TurnView[] = [];
  let system = '';
  for (const m of body.messages) {
    if (m.role === 'system') {
      system += m.content;
      continue;
    }
    if (m.role === 'tool') {
      let last = turns[turns.length - 1];
      if (last?.role !== 'results') {
        last = turn('results');
        turns.push(last);
      }
      last.resultIds.push(m.tool_call_id);
      continue;
    }
    const t = turn(m.role);
    t.text = m.content ?? '';
    t.callIds = (m.tool_calls ?? []).map((c: any) => c.id);
    turns.push(t);
  }
  return {
    system,
    cacheBreakpoints: 0,
    turns,
    toolNames: (body.tools ?? []).map((t: any) => t.function.name),
    maxTokens: body.max_tokens ?? body.max_completion_tokens,
  };
}
