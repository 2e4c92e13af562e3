/**
 * MCP servers' prompts as the chat's slash-command list reads them. The MCP client implements
 * this; the command list (`/` completion and running a command) consumes it and needs nothing
 * else of MCP. Everything a server says here is untrusted text: show it, count it, never act on it.
 */

/** One argument a prompt takes (the command's `$1…` in the order listed). */
export interface McpPromptArgument {
  name: string;
  description?: string;
  required: boolean;
}

/** A prompt one server offers, with the slash command it is offered as. */
export interface McpPromptInfo {
  /** The server's name as the user configured it. */
  server: string;
  /** The prompt's name as the server lists it. */
  name: string;
  /** What the user types after `/`: `mcp.<server>.<prompt>` (VS Code's own spelling). */
  command: string;
  description?: string;
  arguments: McpPromptArgument[];
}

/** One message of a prompt's text; non-text parts arrive as a short note of what was left out. */
export interface McpPromptMessage {
  role: 'user' | 'assistant';
  text: string;
}

export interface McpPromptText {
  description?: string;
  messages: McpPromptMessage[];
}

export interface McpPromptSource {
  /** Every prompt of every server that is running or can start now; a server that fails is left out (never throws). */
  listPrompts(signal?: AbortSignal): Promise<McpPromptInfo[]>;
  /** The prompt's messages for these arguments; throws an Error with a message fit for the user. */
  getPrompt(server: string, name: string, args: Record<string, string>, signal?: AbortSignal): Promise<McpPromptText>;
}

/** The slash command a server's prompt is offered as. */
export function mcpPromptCommand(server: string, prompt: string): string {
  return `mcp.${server}.${prompt}`;
}

/** Which server and prompt a slash command names, or undefined when it is not an MCP prompt. */
export function parseMcpPromptCommand(command: string, prompts: readonly McpPromptInfo[]): McpPromptInfo | undefined {
  return prompts.find((p) => p.command === command);
}

/** A source with no servers (where MCP is not configured). */
export const NO_MCP_PROMPTS: McpPromptSource = {
  listPrompts: () => Promise.resolve([]),
  getPrompt: (server) => Promise.reject(new Error(`No MCP server named "${server}" is configured.`)),
};
