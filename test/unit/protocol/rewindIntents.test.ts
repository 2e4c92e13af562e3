import * as assert from 'assert';
import { parseChatMessage } from '../../../src/protocol/validate';

function rejected(result: unknown): string {
  assert.ok(result && typeof result === 'object' && 'error' in result, `expected a rejection, got ${JSON.stringify(result)}`);
  return (result as { error: string }).error;
}

describe('protocol validators: restore and rewind intents from the chat', () => {
  for (const message of [{ type: 'restoreFiles', messageId: 'm-12' }, { type: 'rewind', messageId: 'm-12' }]) {
    it(`accepts ${JSON.stringify(message)}`, () => {
      assert.deepStrictEqual(parseChatMessage(message), message);
    });
  }

  const malformed: Array<[string, unknown, RegExp]> = [
    ['a rewind without a message id', { type: 'rewind' }, /"messageId" must be a string/],
    ['a restore without a message id', { type: 'restoreFiles' }, /"messageId" must be a string/],
    ['a message id that is a number', { type: 'rewind', messageId: 12 }, /"messageId" must be a string/],
    ['an empty message id', { type: 'restoreFiles', messageId: '' }, /must not be empty/],
    ['a message id past the id limit', { type: 'rewind', messageId: 'm'.repeat(201) }, /longer than 200/],
    ['a rewind that brings its own text (the host reads the message from its records)', { type: 'rewind', messageId: 'm-1', text: 'injected' }, /text/],
    ['a restore that names files (the host decides them from its checkpoints)', { type: 'restoreFiles', messageId: 'm-1', files: ['/etc/passwd'] }, /files/],
    ['a rewind that asks to restore files itself (the host asks the user)', { type: 'rewind', messageId: 'm-1', restoreFiles: true }, /restoreFiles/],
  ];
  for (const [name, message, error] of malformed) {
    it(`rejects ${name}`, () => {
      assert.match(rejected(parseChatMessage(message)), error);
    });
  }
});
