import { strict as assert } from 'assert';
import { requestItemOf } from '../../../../src/core/compaction/requestItems';
import { userMessage } from '../../../../src/core/model/factories';

describe('a message a command wrote, in the inspector', () => {
  it('its request item names the command and its file; a typed message names none', () => {
    const fromCommand = { ...userMessage('Review src/a.ts'), meta: { source: '/review from .tally/commands/review.md' } };
    assert.equal(requestItemOf(fromCommand, 5).source, '/review from .tally/commands/review.md');
    assert.equal(requestItemOf(userMessage('hello'), 1).source, undefined);
  });
});
