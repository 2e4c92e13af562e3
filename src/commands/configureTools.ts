import * as vscode from 'vscode';
import { countToolDefinitions } from '../core/accounting/messageTokens';
import { getTokenCounter } from '../core/accounting/tokenizer';
import { choiceFromPicked, toolGroupTotals, toolPickerRows, type ToolChoice, type ToolPickerRow } from '../core/tools/toolChoice';
import type { AgentFactory } from '../agents/agentFactory';

interface ToolItem extends vscode.QuickPickItem {
  tool?: ToolPickerRow;
}

/**
 * Tally: Configure Tools — which tools the model is offered, each with its source and what it
 * adds to every request. Built-in tools are on unless turned off; tools of VS Code, other
 * extensions and MCP servers only once turned on; VS Code's internal tools are never listed.
 * `args.picked` answers without the picker (the extension-host tests).
 */
export async function configureToolsCommand(agents: AgentFactory, args?: { picked: string[] }): Promise<ToolChoice | undefined> {
  const counter = getTokenCounter('o200k_base');
  await counter.load();
  // The MCP servers' tools are listed once the servers have started (each within its time limit).
  await agents.mcp?.startAll();
  const previous = agents.toolChoice.get();
  const rows = toolPickerRows(agents.pickableTools(), previous, (tool) => countToolDefinitions([tool], counter));
  let picked: Set<string>;
  if (args && Array.isArray(args.picked)) {
    picked = new Set(args.picked.filter((n): n is string => typeof n === 'string'));
  } else {
    const items: ToolItem[] = [];
    let group: string | undefined;
    const totals = new Map(toolGroupTotals(rows).map((t) => [t.group, t]));
    for (const row of rows) {
      const total = totals.get(row.group)!;
      if (row.group !== group) items.push({ label: `${row.group} · ${total.tools} tool${total.tools === 1 ? '' : 's'}, ${total.offeredTokens.toLocaleString('en-US')} tokens offered`, kind: vscode.QuickPickItemKind.Separator });
      group = row.group;
      items.push({
        label: row.name,
        description: `${row.tokens.toLocaleString('en-US')} tokens · ${row.origin}`,
        detail: row.description || '(no description)',
        picked: row.picked,
        tool: row,
      });
    }
    const now = rows.filter((r) => r.picked).reduce((n, r) => n + r.tokens, 0);
    const chosen = await vscode.window.showQuickPick(items, {
      title: 'Tally: Configure Tools',
      placeHolder: `Offered to the model with every request: ${now.toLocaleString('en-US')} tokens now`,
      canPickMany: true,
      matchOnDescription: true,
      matchOnDetail: true,
      ignoreFocusOut: true,
    });
    if (!chosen) return undefined;
    picked = new Set(chosen.flatMap((i) => (i.tool ? [i.tool.name] : [])));
  }
  const choice = choiceFromPicked(rows, picked, previous);
  await agents.toolChoice.set(choice);
  const offered = rows.filter((r) => picked.has(r.name));
  if (!args) void vscode.window.showInformationMessage(`Tally offers ${offered.length} tool${offered.length === 1 ? '' : 's'} (${offered.reduce((n, r) => n + r.tokens, 0).toLocaleString('en-US')} tokens a request) from the next request on.`);
  return choice;
}
