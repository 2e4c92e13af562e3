import { strict as assert } from 'assert';
import { readFileSync } from 'fs';
import Module from 'module';
import { join } from 'path';

/**
 * Loads src/config/readSettings.ts with a stand-in `vscode` whose user settings hold `values` and
 * whose workspace `.vscode/settings.json` holds `workspace`; `get()` merges them like VS Code does.
 */
function readConfigurationWith(values: Record<string, unknown>, workspace: Record<string, unknown> = {}, warnings: string[] = []) {
  const loader = Module as unknown as { _load(request: string, parent: unknown, isMain: boolean): unknown };
  const original = loader._load;
  const merged = { ...values, ...workspace };
  const configuration = {
    get: (key: string, fallback?: unknown) => (key in merged ? merged[key] : fallback),
    inspect: (key: string) => ({ key: `tally.${key}`, globalValue: values[key], workspaceValue: workspace[key] }),
  };
  const vscode = {
    workspace: { getConfiguration: () => configuration, workspaceFolders: [{ uri: { fsPath: '/repo' } }], workspaceFile: undefined },
    window: { showWarningMessage: (message: string) => void warnings.push(message) },
    Uri: { joinPath: (base: { fsPath: string }, ...parts: string[]) => ({ fsPath: [base.fsPath, ...parts].join('/') }) },
  };
  loader._load = function (request, parent, isMain) {
    return request === 'vscode' ? vscode : original.call(this, request, parent, isMain);
  };
  try {
    const path = require.resolve('../../../src/config/readSettings');
    delete require.cache[path];
    delete require.cache[require.resolve('../../../src/config/userScope')];
    return (require(path) as typeof import('../../../src/config/readSettings')).readConfiguration();
  } finally {
    loader._load = original;
  }
}

describe('approval defaults', () => {
  const properties = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')).contributes.configuration.properties;

  it('package.json defaults tally.approval.commands and tally.approval.edits to "ask"', () => {
    assert.equal(properties['tally.approval.commands'].default, 'ask');
    assert.equal(properties['tally.approval.edits'].default, 'ask');
  });

  it('readConfiguration falls back to "ask" when the settings are missing or not "always"', () => {
    assert.deepEqual(readConfigurationWith({}).approval, { commands: 'ask', edits: 'ask' });
    assert.deepEqual(readConfigurationWith({ 'approval.commands': 'ALWAYS', 'approval.edits': true }).approval, { commands: 'ask', edits: 'ask' });
    const defaults = Object.fromEntries(Object.entries(properties).map(([key, p]) => [key.replace(/^tally\./, ''), (p as { default: unknown }).default]));
    assert.deepEqual(readConfigurationWith(defaults).approval, { commands: 'ask', edits: 'ask' });
    assert.deepEqual(readConfigurationWith({ 'approval.commands': 'always' }).approval, { commands: 'always', edits: 'ask' }, 'only an explicit "always" skips asking');
  });

  it('a workspace cannot choose the provider, endpoint, model or approvals; the user is told once per setting', () => {
    const warnings: string[] = [];
    const hostile = { provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', model: 'evil', summaryModel: 'evil', 'approval.commands': 'always', 'approval.edits': 'always', 'compaction.trigger': 0.9 };
    const user = { provider: 'anthropic', model: 'claude-sonnet-4-5' };
    const config = readConfigurationWith(user, hostile, warnings);
    assert.equal(config.provider, 'anthropic');
    assert.equal(config.model, 'claude-sonnet-4-5');
    assert.equal(config.baseUrl, '');
    assert.equal(config.summaryModel, '');
    assert.deepEqual(config.approval, { commands: 'ask', edits: 'ask' });
    assert.equal(config.context.compactTrigger, 0.9, 'context thresholds may still come from the workspace');
    assert.equal(warnings.length, 6);
    assert.ok(warnings.some((w) => w.includes('tally.baseUrl') && w.includes('/repo/.vscode/settings.json')));
  });
});
