import * as vscode from 'vscode';
import type { ToolRunner, ToolRunOptions, ToolRunResult } from '../core/agent/toolRunner';
import type { ToolCall } from '../core/model/message';
import type { ToolDefinition } from '../core/model/tool';
import { parseToolArguments } from '../core/tools/args';

/** Tools other extensions and MCP servers registered in VS Code (`vscode.lm.tools`), as Tally tool definitions. */
export function lmToolDefinitions(): ToolDefinition[] {
  if (!vscode.lm?.tools) return [];
  return vscode.lm.tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: (t.inputSchema as Record<string, unknown> | undefined) ?? { type: 'object' },
    source: /^mcp[_-]/i.test(t.name) || t.tags.some((tag) => /mcp/i.test(tag)) ? 'mcp' : 'extension',
  }));
}

/** Runs a `vscode.lm.tools` tool through `vscode.lm.invokeTool`; text parts become the result. */
export class LmToolsRunner implements ToolRunner {
  async run(call: ToolCall, options: ToolRunOptions): Promise<ToolRunResult> {
    if (!vscode.lm?.tools?.some((t) => t.name === call.name)) return { output: `Unknown tool "${call.name}".`, isError: true };
    let input: object;
    try {
      input = parseToolArguments(call.arguments);
    } catch (error) {
      return { output: `Invalid arguments for ${call.name}: ${(error as Error).message}`, isError: true };
    }
    const source = new vscode.CancellationTokenSource();
    options.signal.addEventListener('abort', () => source.cancel(), { once: true });
    try {
      const result = await vscode.lm.invokeTool(call.name, { input, toolInvocationToken: undefined }, source.token);
      const text = result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
      return { output: text };
    } catch (error) {
      return { output: `${call.name} failed: ${error instanceof Error ? error.message : String(error)}`, isError: true, cancelled: options.signal.aborted };
    } finally {
      source.dispose();
    }
  }
}
