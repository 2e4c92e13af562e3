import { strict as assert } from 'assert';
import { readFileSync } from 'fs';
import { join } from 'path';
import { DEFAULT_SETTINGS } from '../../../src/core/settings';
import { SETTINGS_SCHEMA } from '../../../src/core/settingsSchema';

/** The contribution's shape without its human-readable descriptions, at every depth. */
function withoutDescriptions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDescriptions);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => k !== 'description' && k !== 'markdownDescription').map(([k, v]) => [k, withoutDescriptions(v)]));
}

describe('settings schema', () => {
  const properties: Record<string, Record<string, unknown>> = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')).contributes.configuration.properties;

  it('package.json contributes exactly the schema keys with the same type, default, range, enum and scope', () => {
    assert.deepEqual(Object.keys(properties).sort(), Object.keys(SETTINGS_SCHEMA).map((k) => `tally.${k}`).sort());
    for (const [key, spec] of Object.entries(SETTINGS_SCHEMA)) {
      const contributed = properties[`tally.${key}`];
      assert.deepEqual(withoutDescriptions(contributed), JSON.parse(JSON.stringify(spec)), `tally.${key}`);
    }
  });

  it('settings that pick the endpoint, the model the key pays for, or approvals are application-scoped (user settings only) (never a workspace)', () => {
    for (const key of ['provider', 'baseUrl', 'model', 'summaryModel', 'approval.commands', 'approval.edits', 'hooks', 'hookTimeoutSeconds']) {
      assert.equal(properties[`tally.${key}`].scope, 'application', `tally.${key}`);
    }
  });

  it('the core defaults are the schema defaults', () => {
    assert.equal(DEFAULT_SETTINGS.compactTrigger, SETTINGS_SCHEMA['compaction.trigger'].default);
    assert.equal(DEFAULT_SETTINGS.truncation.maxBytes, SETTINGS_SCHEMA['toolOutput.maxBytes'].default);
    assert.equal(DEFAULT_SETTINGS.summary.targetShare, SETTINGS_SCHEMA['compaction.target'].default);
    assert.equal(DEFAULT_SETTINGS.masking.keepLast, SETTINGS_SCHEMA['compaction.keepToolResults'].default);
  });
});
