/**
 * An MCP result's content as text for the model: text parts as they are, an embedded text
 * resource as its text, and everything else (images, audio, binary resources, links) as one line
 * naming what was left out, so the model knows it was there.
 */
type Part = { type?: unknown; text?: unknown; mimeType?: unknown; data?: unknown; uri?: unknown; name?: unknown; resource?: { uri?: unknown; text?: unknown; blob?: unknown; mimeType?: unknown } };

export function contentText(result: { content?: unknown; structuredContent?: unknown; toolResult?: unknown }): string {
  const content = Array.isArray(result.content) ? (result.content as Part[]) : [];
  if (content.length === 0) {
    if (result.structuredContent !== undefined) return JSON.stringify(result.structuredContent, null, 2);
    if (result.toolResult !== undefined) return typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult, null, 2);
    return '';
  }
  return content.map(partText).join('\n');
}

export function promptMessageText(content: unknown): string {
  return partText(content as Part);
}

function partText(part: Part): string {
  const bytes = (base64: unknown) => (typeof base64 === 'string' ? Math.floor((base64.length * 3) / 4) - (base64.match(/=*$/)?.[0].length ?? 0) : 0);
  switch (part?.type) {
    case 'text':
      return typeof part.text === 'string' ? part.text : '';
    case 'image':
    case 'audio':
      return `[${String(part.type)} (${String(part.mimeType ?? 'unknown type')}, ${bytes(part.data)} bytes) left out]`;
    case 'resource_link':
      return `[resource ${String(part.name ?? '')} at ${String(part.uri ?? '')}]`;
    case 'resource': {
      const r = part.resource ?? {};
      if (typeof r.text === 'string') return r.text;
      return `[resource ${String(r.uri ?? '')} (${String(r.mimeType ?? 'binary')}, ${bytes(r.blob)} bytes) left out]`;
    }
    default:
      return `[content of type ${JSON.stringify(part?.type ?? null)} left out]`;
  }
}
