import { strict as assert } from 'assert';
import * as vscode from 'vscode';
import { buildInspectorState } from '../../../src/host/inspector/inspectorState';
import type { ConfigureToolsShown } from '../../../src/commands/configureTools';
import type { TallyApi } from '../../../src/extension';
import { SCRIPTED_WINDOW_SETTINGS, scriptedModelForSuite, tallyApi as api, until } from './hostHelpers';

const n = (tokens: number) => tokens.toLocaleString('en-US');

/**
 * A tool's cost is one figure: Configure Tools' rows, its placeholder and its message, and the
 * inspector's tool items (with their framing) and its Tools component say the same number.
 */
describe('One figure per tool: Configure Tools and the inspector agree', () => {
  const scripted = scriptedModelForSuite(SCRIPTED_WINDOW_SETTINGS);

  /** The inspector's tools for the last request: each offered tool's item plus its share of the framing, and the request's Tools figure. */
  async function inspectorTools(t: TallyApi) {
    const session = await t.sessions.current();
    const last = buildInspectorState(session).requests.reduce((a, b) => (a.requestIndex > b.requestIndex ? a : b));
    const record = (await (await t.sessions.store()).requestUsageAt(session.info.id, last.requestIndex))!;
    const tools = record.items.filter((i) => i.section === 'tools');
    const framing = tools.find((i) => i.messageId === 'framing:tools')!;
    const offered = tools.filter((i) => i.kind === 'tool-schema' && !i.badges.includes('deferred'));
    const perTool = framing.tokens / offered.length;
    return {
      costs: new Map(offered.map((i) => [i.toolName!, i.tokens + perTool])),
      figure: tools.reduce((sum, i) => sum + i.tokens, 0),
      lastRequest: last.components.tools,
    };
  }

  async function turn(t: TallyApi, text: string): Promise<void> {
    scripted().enqueue({ type: 'reply', parts: [{ text: 'Done.' }], usage: null });
    await t.sessions.send(text);
    await until('the turn ended', async () => !(await t.sessions.current()).agent?.busy);
  }

  it('lists every tool a request carries, each at the cost the inspector shows, and the totals match before and after a change', async function () {
    this.timeout(120_000);
    const t = await api();
    await until('the model is ready', async () => Boolean((await t.sessions.current()).agent));
    await t.sessions.create('tool figures');
    const everything = t.agents.pickableTools().filter((d) => d.source === 'builtin').map((d) => d.name);
    await vscode.commands.executeCommand('tally.configureTools', { picked: everything });
    try {
      await turn(t, 'Say done.');
      const before = await inspectorTools(t);
      const shown = (await vscode.commands.executeCommand<ConfigureToolsShown>('tally.configureTools', { picked: everything.filter((name) => name !== 'run_command') }))!;
      for (const [name, cost] of before.costs) {
        const row = shown.rows.find((r) => r.name === name);
        assert.ok(row, `the picker lists ${name}, which every request carries`);
        assert.equal(row.tokens, cost, `${name}: the picker's cost is the inspector's item with its framing`);
      }
      assert.equal(shown.placeholder, `Offered to the model with every request: ${n(before.figure)} tokens now`, "the picker's figure is the inspector's Tools figure");
      assert.equal(before.lastRequest, before.figure, "the last request's Tools component is the same figure");

      await turn(t, 'Say done again.');
      const after = await inspectorTools(t);
      assert.ok(!after.costs.has('run_command') && after.costs.has('read_result') && after.costs.has('compact_context'));
      assert.ok(shown.message.includes(`(${n(after.figure)} tokens a request)`), `the message's figure is the next request's Tools figure ${n(after.figure)}: ${shown.message}`);
      assert.ok(shown.message.startsWith(`Tally offers ${after.costs.size} tools`), shown.message);
      assert.equal(after.lastRequest, after.figure);
    } finally {
      await vscode.commands.executeCommand('tally.configureTools', { picked: everything });
    }
  });
});
