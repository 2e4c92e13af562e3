/**
 * A list's lineage never says a position is unchanged when it holds another object than it did:
 * what follows the session's lists skips the positions it says are the same, so one wrong answer
 * would send, count or store a stale message.
 */
import { strict as assert } from 'assert';
import { markOf, noteDerived, noteEdit, trackEdits, unchangedBefore, type ListMark } from '../../../../src/core/model/listLineage';
import { prng } from '../../../support/syntheticSession';

/** How many positions at the start of `now` hold the objects `then` held. */
function trulyUnchanged(then: readonly object[], now: readonly object[]): number {
  let k = 0;
  while (k < then.length && k < now.length && then[k] === now[k]) k++;
  return k;
}

describe('the lineage of a list', () => {
  it('tells no more unchanged positions than there are, through edits in place and lists made from lists', () => {
    const random = prng(5);
    const item = () => ({});
    let edited: object[] = trackEdits([item(), item(), item()]);
    let derived: object[] = [...edited];
    noteDerived(derived, undefined, 0);
    const marks: Array<{ mark: ListMark | undefined; list: 'edited' | 'derived'; then: object[] }> = [];
    for (let step = 0; step < 8_000; step++) {
      const r = random();
      if (r < 0.35) {
        edited.push(item());
        noteEdit(edited, edited.length - 1);
      } else if (r < 0.45 && edited.length) {
        const at = Math.floor(random() * edited.length);
        edited[at] = item();
        noteEdit(edited, at);
      } else if (r < 0.5) {
        edited.length = Math.floor(random() * edited.length);
        noteEdit(edited, edited.length);
      } else if (r < 0.52) {
        edited = trackEdits([...edited]); // replaced as a whole: a new lineage
      } else if (r < 0.8) {
        // A new list made from the edited one, with something new at a random place, told where it starts to differ.
        const at = Math.floor(random() * (edited.length + 1));
        const next = [...edited.slice(0, at), item(), ...edited.slice(at)];
        noteDerived(next, random() < 0.95 ? derived : [...derived], trulyUnchanged(derived, next));
        derived = next;
      }
      if (random() < 0.3) marks.push(random() < 0.5 ? { mark: markOf(edited), list: 'edited', then: [...edited] } : { mark: markOf(derived), list: 'derived', then: [...derived] });
      // The latest marks, and a few old ones (older than the changes a lineage keeps).
      for (const { mark, list, then } of [...marks.slice(-20), ...marks.slice(0, 3)]) {
        const now = list === 'edited' ? edited : derived;
        const told = unchangedBefore(mark, now);
        assert.ok(Math.min(told, then.length, now.length) <= trulyUnchanged(then, now), `step ${step}: ${told} unchanged told, ${trulyUnchanged(then, now)} true`);
      }
    }
  });

  it('tells a follower of the edited list exactly what was appended since', () => {
    const list: object[] = trackEdits([{}, {}]);
    const mark = markOf(list);
    list.push({}, {});
    noteEdit(list, 2);
    assert.equal(unchangedBefore(mark, list), 2);
    assert.equal(unchangedBefore(mark, [...list]), 0, 'a copy is another list: compared whole');
    assert.equal(unchangedBefore(undefined, list), 0);
  });

  it('answers 0 for a mark older than the changes it keeps, even when the kept ones are all appends', () => {
    const list: object[] = trackEdits([{}, {}]);
    const mark = markOf(list);
    list[0] = {};
    noteEdit(list, 0);
    for (let i = 0; i < 5_000; i++) {
      list.push({});
      noteEdit(list, list.length - 1);
    }
    assert.equal(unchangedBefore(mark, list), 0);
  });
});
