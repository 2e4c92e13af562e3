import * as assert from 'assert';
import { ContextBudget } from '../../../src/core/accounting/budget';
import { DEFAULT_SETTINGS } from '../../../src/core/settings';
import { inspectorHandlers } from '../../../src/host/inspector/inspectorIntents';
import { receiveWebviewMessage } from '../../../src/protocol/receive';
import { parseInspectorMessage } from '../../../src/protocol/validate';

/**
 * The summary the user edits in the compaction preview crosses the webview boundary: it is checked
 * where it arrives, and a malformed one reaches no compaction.
 */

const KB = 1024;
const PROPOSED = 'The user asked to fix the config loader; relative paths were the cause.';

function rejected(result: unknown): string {
  assert.ok(result && typeof result === 'object' && 'error' in result, `expected a rejection, got ${JSON.stringify(result)?.slice(0, 200)}`);
  return (result as { error: string }).error;
}

/** The real validator and intent handlers against a session that records what it is asked to do. */
function inspector() {
  const compacted: unknown[][] = [];
  const warnings: string[] = [];
  const errors: unknown[] = [];
  const session = { measure: () => new ContextBudget({ contextWindow: 1_000, maxOutputTokens: 100, settings: DEFAULT_SETTINGS }).setComponents({ system: 0, skills: 0, tools: 0, messages: 100, toolResults: 0, summaries: 0 }) };
  const result = { status: 'complete', tokensBefore: 100, tokensAfter: 40, strategies: ['threshold-summarization'], removed: [], summary: PROPOSED };
  const sessions = {
    current: async () => ({ info: { id: 's1' }, contextSession: session, fixed: { system: 0, skills: 0, tools: 0 } }),
    store: async () => ({ listRequestUsage: async () => [] }),
    setPinned: async () => true,
    preview: async () => result,
    compact: async (...args: unknown[]) => (compacted.push(args), result),
  };
  const inbox = {
    source: 'inspector',
    parse: parseInspectorMessage,
    log: { warn: (line: string) => void warnings.push(line) },
    handlers: inspectorHandlers({
      sessions: sessions as any,
      post: () => undefined,
      sendState: async () => undefined,
      showEarlier: async () => undefined,
      executeCommand: async () => undefined,
      showInformation: () => undefined,
    }),
    onError: (error: unknown) => void errors.push(error),
  };
  return { compacted, warnings, errors, receive: (raw: unknown) => receiveWebviewMessage(raw, inbox) };
}

describe('confirming a compaction with the summary the user edited', () => {
  it('accepts a summary up to 256 KB, with or without a focus', () => {
    for (const message of [
      { type: 'confirmCompaction', summary: 'Keep the snapshot diff.' },
      { type: 'confirmCompaction', focus: 'config loader', summary: 'Keep the snapshot diff.\nAnd the failing test.' },
      { type: 'confirmCompaction', summary: 's'.repeat(256 * KB) },
    ]) {
      assert.deepStrictEqual(parseInspectorMessage(message), message);
    }
  });

  const malformed: Array<[string, unknown, RegExp]> = [
    ['a numeric summary', { type: 'confirmCompaction', summary: 42 }, /"summary" must be a string/],
    ['a null summary', { type: 'confirmCompaction', summary: null }, /"summary" must be a string/],
    ['an object summary', { type: 'confirmCompaction', summary: { text: 'x' } }, /"summary" must be a string/],
    ['a blank summary', { type: 'confirmCompaction', summary: ' \n\t ' }, /"summary" is blank/],
    ['an empty summary', { type: 'confirmCompaction', summary: '' }, /"summary" is blank/],
    ['a summary one byte over 256 KB', { type: 'confirmCompaction', summary: 's'.repeat(256 * KB + 1) }, /"summary" is longer than 262144 bytes/],
    ['a summary short in characters but over 256 KB in UTF-8', { type: 'confirmCompaction', summary: '€'.repeat(90_000) }, /"summary" is longer than 262144 bytes/],
    ['the original smuggled in beside it', { type: 'confirmCompaction', summary: 'mine', originalSummary: 'not what Tally proposed' }, /unexpected key "originalSummary"/],
  ];
  for (const [name, message, why] of malformed) {
    it(`refuses ${name} with a clear error and compacts nothing`, async () => {
      assert.match(rejected(parseInspectorMessage(message)), why);
      const host = inspector();
      await host.receive({ type: 'previewCompaction' });
      const receipt = await host.receive(message);
      assert.strictEqual(receipt.accepted, false);
      assert.deepStrictEqual(host.compacted, [], 'no compaction ran');
      assert.strictEqual(host.warnings.length, 1);
      assert.match(host.warnings[0], /^inspector: rejected a message from the webview \(type "confirmCompaction"\): /);
      assert.match(host.warnings[0], why);
    });
  }

  it('compacts with the edited text, and the original is the one the host proposed, not one the webview names', async () => {
    const host = inspector();
    await host.receive({ type: 'previewCompaction', focus: 'config loader' });
    const receipt = await host.receive({ type: 'confirmCompaction', focus: 'config loader', summary: 'My own summary.' });
    assert.strictEqual(receipt.accepted, true);
    assert.deepStrictEqual(host.compacted, [['config loader', { text: 'My own summary.', proposed: PROPOSED }]]);
    assert.deepStrictEqual(host.errors, []);
  });

  it('refuses a summary confirmed before any preview proposed one, and compacts nothing', async () => {
    const host = inspector();
    await host.receive({ type: 'confirmCompaction', summary: 'My own summary.' });
    assert.deepStrictEqual(host.compacted, []);
    assert.strictEqual(host.errors.length, 1);
    assert.match(String(host.errors[0]), /preview the compaction again/);
  });

  it('still confirms without a summary, as before (a compaction that proposes none)', async () => {
    const host = inspector();
    await host.receive({ type: 'confirmCompaction' });
    assert.deepStrictEqual(host.compacted, [[undefined, undefined]]);
  });
});
