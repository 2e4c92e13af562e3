/** Accept and Reject from a diff answer only the edit that diff shows. */
import { strict as assert } from 'assert';
import { diffQuery, PendingEditDiffs } from '../../../src/workspace/pendingEditDiffs';

describe('diffs of pending edits', () => {
  const pending = new Map<string, string>([
    ['call_edit', 'edit'],
    ['call_cmd', 'command'],
    ['call_other_edit', 'edit'],
  ]);
  const kindOf = (id: string) => pending.get(id);

  it('a made-up address naming a pending command (or any call) by id answers nothing', () => {
    const diffs = new PendingEditDiffs();
    diffs.add('call_edit', { before: 'a', after: 'b' });
    for (const query of ['call=call_cmd', 'call=call_cmd&side=after', 'call=call_edit&side=after', 'edit=call_cmd&side=after', 'edit=call_edit', 'edit=&side=after', '']) {
      assert.equal(diffs.answerable(query, kindOf), undefined, `refuses ?${query}`);
    }
  });

  it("the diff's own addresses answer its edit, and only while that edit is pending", () => {
    const diffs = new PendingEditDiffs();
    const token = diffs.add('call_edit', { before: 'one\n', after: 'ONE\n' });
    assert.ok(token.length >= 32, 'the token is long enough not to be guessed');
    assert.equal(diffs.answerable(diffQuery(token, 'after'), kindOf), 'call_edit');
    assert.equal(diffs.answerable(diffQuery(token, 'before'), kindOf), 'call_edit');
    assert.equal(diffs.text(diffQuery(token, 'before')), 'one\n');
    assert.equal(diffs.text(diffQuery(token, 'after')), 'ONE\n');
    assert.equal(diffs.answerable(diffQuery(token, 'after'), () => undefined), undefined, 'an answered approval is not answered again');
    diffs.remove('call_edit');
    assert.equal(diffs.answerable(diffQuery(token, 'after'), kindOf), undefined, 'a closed diff answers nothing');
    assert.equal(diffs.text(diffQuery(token, 'after')), '');
  });

  it('a token bound to a call whose pending approval is not an edit answers nothing', () => {
    const diffs = new PendingEditDiffs();
    const token = diffs.add('call_cmd', { before: '', after: '' });
    assert.equal(diffs.answerable(diffQuery(token, 'after'), kindOf), undefined);
  });

  it("each diff's token answers its own edit, not another pending one, and tokens differ", () => {
    const diffs = new PendingEditDiffs();
    const first = diffs.add('call_edit', { before: '', after: 'x' });
    const second = diffs.add('call_other_edit', { before: '', after: 'y' });
    assert.notEqual(first, second);
    assert.equal(diffs.answerable(diffQuery(first, 'after'), kindOf), 'call_edit');
    assert.equal(diffs.answerable(diffQuery(second, 'after'), kindOf), 'call_other_edit');
    const again = diffs.add('call_edit', { before: '', after: 'z' });
    assert.equal(diffs.answerable(diffQuery(first, 'after'), kindOf), undefined, 'showing an edit again retires its old address');
    assert.equal(diffs.answerable(diffQuery(again, 'after'), kindOf), 'call_edit');
  });
});
