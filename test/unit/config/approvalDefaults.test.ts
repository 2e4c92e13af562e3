import { strict as assert } from 'assert';
import { readFileSync } from 'fs';
import Module from 'module';
import { join } from 'path';

/** Loads src/config/readSettings.ts with a stand-in `vscode` whose settings hold only `values`. */
function readConfigurationWith(values: Record<string, unknown>) {
  const loader = Module as unknown as { _load(request: string, parent: unknown, isMain: boolean): unknown };
  const original = loader._load;
  const vscode = { workspace: { getConfiguration: () => ({ get: (key: string, fallback?: unknown) => (key in values ? values[key] : fallback) }) } };
  loader._load = function (request, parent, isMain) {
    return request === 'vscode' ? vscode : original.call(this, request, parent, isMain);
  };
  try {
    const path = require.resolve('../../../src/config/readSettings');
    delete require.cache[path];
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
});
