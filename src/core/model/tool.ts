/** Where a tool comes from; decides deferral order: built-ins are never deferred. */
export type ToolSource = 'builtin' | 'skill' | 'extension' | 'mcp';

/** A tool definition as sent to the model. `inputSchema` is a JSON Schema object. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  source: ToolSource;
  /** Who provides it, when known: the extension's id, or the MCP server (tools from `vscode.lm.tools`). */
  origin?: string;
  /** The MCP server Tally runs that provides it: Configure Tools and the inspector group and total its tools by it. */
  server?: string;
}
