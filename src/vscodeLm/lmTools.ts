import * as vscode from 'vscode';
import { userValue } from '../config/userScope';
import type { ToolDefinition } from '../core/model/tool';
import type { Tool } from '../core/tools/types';

function isMcp(tool: vscode.LanguageModelToolInformation): boolean {
  return /^mcp[_-]/i.test(tool.name) || tool.tags.some((tag) => /mcp/i.test(tag));
}

/** Tools other extensions and MCP servers registered in VS Code (`vscode.lm.tools`), as Tally tool definitions. */
export function lmToolDefinitions(): ToolDefinition[] {
  if (!vscode.lm?.tools) return [];
  const owners = toolOwners();
  return vscode.lm.tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: (t.inputSchema as Record<string, unknown> | undefined) ?? { type: 'object' },
    source: isMcp(t) ? 'mcp' : 'extension',
    origin: toolSource(t, owners).replace(/^the extension /, ''),
  }));
}

/** The extension that contributes each tool name, read once from every extension's manifest. */
function toolOwners(): Map<string, string> {
  const owners = new Map<string, string>();
  for (const ext of vscode.extensions.all) {
    const contributed: unknown = ext.packageJSON?.contributes?.languageModelTools;
    if (!Array.isArray(contributed)) continue;
    for (const t of contributed) {
      const name = t && typeof t === 'object' ? (t as { name?: unknown }).name : undefined;
      if (typeof name === 'string' && !owners.has(name)) owners.set(name, ext.id);
    }
  }
  return owners;
}

/** Where a tool comes from, for the approval card: the extension that contributes it, or MCP. */
function toolSource(tool: vscode.LanguageModelToolInformation, owners = toolOwners()): string {
  const owner = owners.get(tool.name);
  if (owner) return `the extension ${owner}`;
  if (isMcp(tool)) return 'an MCP server';
  return /^vscode_/.test(tool.name) ? 'VS Code' : 'another extension';
}

const MAX_INPUT_CHARS = 8_000;

/**
 * The tools other extensions and MCP servers registered, as registry entries: each asks on the
 * chat's approval card (showing its name, where it comes from and its input) unless the user
 * allowed it, then runs through `vscode.lm.invokeTool`; text parts become the result.
 */
export function lmTools(): Tool[] {
  return lmToolDefinitions().map((definition) => ({
    definition,
    approval: 'external',
    async execute(input, ctx) {
      const tool = vscode.lm.tools.find((t) => t.name === definition.name);
      if (!tool) return { output: `Unknown tool "${definition.name}".`, isError: true };
      const pretty = JSON.stringify(input, null, 2);
      const shown = pretty.length > MAX_INPUT_CHARS ? `${pretty.slice(0, MAX_INPUT_CHARS)}\n… (${pretty.length - MAX_INPUT_CHARS} more characters)` : pretty;
      await ctx.approve({ title: `Run the tool ${tool.name} from ${toolSource(tool)}`, detail: `Input:\n${shown}`, allowForSession: tool.name }, `running the tool ${tool.name}`);
      const source = new vscode.CancellationTokenSource();
      ctx.signal.addEventListener('abort', () => source.cancel(), { once: true });
      try {
        const result = await vscode.lm.invokeTool(tool.name, { input, toolInvocationToken: undefined }, source.token);
        return { output: result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('') };
      } finally {
        source.dispose();
      }
    },
  }));
}

/** Tool names the user allowed for good: `tally.tools.allowed` from the user's own settings only, never a workspace's. */
export function userAllowedTools(): string[] {
  const value = userValue<unknown>(vscode.workspace.getConfiguration('tally'), 'tools.allowed');
  return Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : [];
}
