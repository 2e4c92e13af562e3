import type { ToolDefinition } from '../model/tool';

/**
 * Each provider's form of one tool in the request's tool list. The request builders send these, and
 * the inspector shows a tool as the JSON text of the same object, so what it opens is exactly what
 * that provider was sent.
 */
export function anthropicTool(tool: ToolDefinition): { name: string; description: string; input_schema: Record<string, unknown> } {
  return { name: tool.name, description: tool.description, input_schema: { type: 'object', ...tool.inputSchema } };
}

export function openAITool(tool: ToolDefinition): { type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } } {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: { type: 'object', ...tool.inputSchema } } };
}

/** The OpenAI Responses API's form: a flat function tool. */
export function responsesTool(tool: ToolDefinition): { type: 'function'; name: string; description: string; parameters: Record<string, unknown> } {
  return { type: 'function', name: tool.name, description: tool.description, parameters: { type: 'object', ...tool.inputSchema } };
}

/** What VS Code's language model API is given (an object, not JSON: the text is its JSON form). */
export function languageModelTool(tool: ToolDefinition): { name: string; description: string; inputSchema: ToolDefinition['inputSchema'] } {
  return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema };
}

/**
 * The tool as this provider sends it, as JSON text (byte for byte as it appears in the request body).
 * `wireFormat` tells apart providers that share an id but not a wire format (OpenAI's two APIs).
 */
export function toolWireText(provider: { id: string; wireFormat?: string }, tool: ToolDefinition): string {
  if (provider.wireFormat === 'openai-responses') return JSON.stringify(responsesTool(tool));
  if (provider.id === 'anthropic') return JSON.stringify(anthropicTool(tool));
  if (provider.id === 'vscode-lm') return JSON.stringify(languageModelTool(tool));
  return JSON.stringify(openAITool(tool));
}
