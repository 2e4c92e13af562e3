import type { ToolDefinition } from '../../model/tool';

// ignoreBOM keeps a byte-order mark in the text, as the file has it.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const encoder = new TextEncoder();

export function utf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

export function utf8Length(text: string): number {
  return encoder.encode(text).length;
}

/** The 1-based line `index` falls on. */
export function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** A built-in tool's definition: an object schema with these properties. */
export function builtinDefinition(name: string, description: string, properties: Record<string, unknown>, required: string[] = []): ToolDefinition {
  return { name, description, inputSchema: { type: 'object', properties, ...(required.length ? { required } : {}) }, source: 'builtin' };
}
