import * as assert from 'assert';
import { parseChatMessage } from '../../../src/protocol/validate';

function rejected(result: unknown): string {
  assert.ok(result && typeof result === 'object' && 'error' in result, `expected a rejection, got ${JSON.stringify(result)}`);
  return (result as { error: string }).error;
}

describe('protocol validators: plan mode and plan card intents from the chat', () => {
  const wellFormed = [
    { type: 'setPlanMode', on: true },
    { type: 'setPlanMode', on: false },
    { type: 'editPlan', messageId: 'm-7', text: '1. Read.\n2. Fix.' },
    { type: 'approvePlan', messageId: 'm-7' },
    { type: 'approvePlan', messageId: 'm-7', text: '1. Read.\n2. Fix, with a test.' },
    { type: 'discardPlan', messageId: 'm-7' },
  ];
  for (const message of wellFormed) {
    it(`accepts ${JSON.stringify(message).slice(0, 80)}`, () => {
      assert.deepStrictEqual(parseChatMessage(message), message);
    });
  }

  const malformed: Array<[string, unknown, RegExp]> = [
    ['a switch that is not a boolean', { type: 'setPlanMode', on: 'yes' }, /"on" must be a boolean/],
    ['a switch with no state', { type: 'setPlanMode' }, /"on" must be a boolean/],
    ['an approval without the plan\'s message', { type: 'approvePlan' }, /"messageId" must be a string/],
    ['an edit of an empty message id', { type: 'editPlan', messageId: '', text: '1. Fix.' }, /must not be empty/],
    ['an edit without text', { type: 'editPlan', messageId: 'm-7' }, /"text" must be a string/],
    ['an edit to a blank plan', { type: 'editPlan', messageId: 'm-7', text: '  \n ' }, /blank/],
    ['an approval with a blank plan', { type: 'approvePlan', messageId: 'm-7', text: '' }, /blank/],
    ['a plan past the message limit', { type: 'editPlan', messageId: 'm-7', text: 'x'.repeat(100 * 1024 + 1) }, /longer than/],
    ['an approval that asks for its own mode or tools (the host decides them)', { type: 'approvePlan', messageId: 'm-7', mode: 'act' }, /mode/],
    ['a discard that brings text (the host keeps the plan as it was)', { type: 'discardPlan', messageId: 'm-7', text: 'other' }, /text/],
  ];
  for (const [name, message, error] of malformed) {
    it(`rejects ${name}`, () => {
      assert.match(rejected(parseChatMessage(message)), error);
    });
  }
});
