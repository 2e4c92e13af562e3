import * as vscode from 'vscode';
import { choiceFromPicked, pickedToolTokens, toolGroupTotals, type ToolChoice, type ToolPickerRow } from '../core/tools/toolChoice';
import type { AgentFactory } from '../agents/agentFactory';

interface ToolItem extends vscode.QuickPickItem {
  tool?: ToolPickerRow;
}

/** What Configure Tools showed: its rows, the figure in its placeholder and the message after a choice. */
export interface ConfigureToolsShown {
  choice: ToolChoice;
  rows: ToolPickerRow[];
  placeholder: string;
  message: string;
}

const tokens = (n: number) => n.toLocaleString('en-US');

/**
 * Tally: Configure Tools — which tools the model is offered, each with its source and what it
 * adds to every request. Built-in tools are on unless turned off; tools of VS Code, other
 * extensions and MCP servers only once turned on; VS Code's internal tools are never listed.
 * `args.picked` answers without the picker (the extension-host tests).
 */
export async function configureToolsCommand(agents: AgentFactory, args?: { picked: string[] }): Promise<ConfigureToolsShown | undefined> {
  // The MCP servers' tools are listed once the servers have started (each within its time limit).
  await agents.mcp?.startAll();
  const previous = agents.toolChoice.get();
  const rows = await agents.pickerRows();
  const placeholder = `Offered to the model with every request: ${tokens(pickedToolTokens(rows, new Set(rows.filter((r) => r.picked).map((r) => r.name))))} tokens now`;
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
        description: `${tokens(row.tokens)} tokens · ${row.alwaysOffered ? 'always offered' : row.origin}`,
        detail: row.description || '(no description)',
        picked: row.picked,
        tool: row,
      });
    }
    const chosen = await vscode.window.showQuickPick(items, {
      title: 'Tally: Configure Tools',
      placeHolder: placeholder,
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
  const count = rows.filter((r) => r.alwaysOffered || picked.has(r.name)).length;
  const message = `Tally offers ${count} tool${count === 1 ? '' : 's'} (${tokens(pickedToolTokens(rows, picked))} tokens a request) from the next request on.`;
  if (!args) void vscode.window.showInformationMessage(message);
  return { choice, rows, placeholder, message };
}
