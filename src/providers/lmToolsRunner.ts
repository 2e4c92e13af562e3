import * as vscode from 'vscode';
import { userValue } from '../config/userScope';
import type { ToolRunner, ToolRunOptions, ToolRunResult } from '../core/agent/toolRunner';
import type { ToolCall } from '../core/model/message';
import type { ToolDefinition } from '../core/model/tool';
import { parseToolArguments } from '../core/tools/args';
import type { ExternalToolGate } from '../core/tools/externalToolGate';

function isMcp(tool: vscode.LanguageModelToolInformation): boolean {
  return /^mcp[_-]/i.test(tool.name) || tool.tags.some((tag) => /mcp/i.test(tag));
}

/** Tools other extensions and MCP servers registered in VS Code (`vscode.lm.tools`), as Tally tool definitions. */
export function lmToolDefinitions(): ToolDefinition[] {
  if (!vscode.lm?.tools) return [];
  return vscode.lm.tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: (t.inputSchema as Record<string, unknown> | undefined) ?? { type: 'object' },
    source: isMcp(t) ? 'mcp' : 'extension',
    origin: toolSource(t).replace(/^the extension /, ''),
  }));
}

/** Where a tool comes from, for the approval card: the extension that contributes it, or MCP. */
function toolSource(tool: vscode.LanguageModelToolInformation): string {
  const owner = vscode.extensions.all.find((ext) => {
    const contributed: unknown = ext.packageJSON?.contributes?.languageModelTools;
    return Array.isArray(contributed) && contributed.some((t) => t && typeof t === 'object' && (t as { name?: unknown }).name === tool.name);
  });
  if (owner) return `the extension ${owner.id}`;
  if (isMcp(tool)) return 'an MCP server';
  return /^vscode_/.test(tool.name) ? 'VS Code' : 'another extension';
}

/**
 * Runs a `vscode.lm.tools` tool through `vscode.lm.invokeTool` once the gate admits it (trust,
 * the user's allow list, or the user's approval); text parts become the result.
 */
export class LmToolsRunner implements ToolRunner {
  constructor(private readonly gate: ExternalToolGate) {}

  async run(call: ToolCall, options: ToolRunOptions): Promise<ToolRunResult> {
    const tool = vscode.lm?.tools?.find((t) => t.name === call.name);
    if (!tool) return { output: `Unknown tool "${call.name}".`, isError: true };
    let input: object;
    try {
      input = parseToolArguments(call.arguments);
    } catch (error) {
      return { output: `Invalid arguments for ${call.name}: ${(error as Error).message}`, isError: true };
    }
    const refusal = await this.gate.admit({ callId: call.id, name: call.name, source: toolSource(tool), input: JSON.stringify(input, null, 2) }, options);
    if (refusal !== undefined) return { output: refusal, isError: true, cancelled: options.signal.aborted };
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

/** Tool names the user allowed for good: `tally.tools.allowed` from the user's own settings only, never a workspace's. */
export function userAllowedTools(): string[] {
  const value = userValue<unknown>(vscode.workspace.getConfiguration('tally'), 'tools.allowed');
  return Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : [];
}
