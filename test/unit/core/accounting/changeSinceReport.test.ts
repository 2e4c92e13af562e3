import { strict as assert } from 'assert';
import { ChangeSinceReport } from '../../../../src/core/accounting/changeSinceReport';
import type { Message } from '../../../../src/core/model/message';
import { prng } from '../../../support/syntheticSession';
import { listWork } from '../../../../src/core/model/listLineage';
import { countTurns } from '../../../support/eventLoopTurns';

const NOTE = 'dynamic-context';
let made = 0;
function message(random: () => number, id = `c${++made}`): Message {
  return { id, role: random() < 0.5 ? 'user' : 'tool', kind: 'user', content: 'x'.repeat(1 + Math.floor(random() * 40)), agentVisible: random() > 0.15, userVisible: true, createdAt: made };
}
const count = (m: Message) => m.content.length + 4;

/** The change as the basis computed it before it kept a running sum: both lists made into maps by id, compared whole. */
function wholeChange(working: readonly Message[], sent: readonly Message[]): number {
  const before = new Map<string, number>();
  for (const m of sent) if (m.id !== NOTE) before.set(m.id, count(m));
  const now = new Map<string, number>();
  for (const m of working) if (m.agentVisible) now.set(m.id, count(m));
  let change = 0;
  for (const [id, tokens] of now) if (!before.has(id)) change += tokens;
  for (const [id, tokens] of before) if (!now.has(id)) change -= tokens;
  return change;
}

/** What a request sends of a working context: its visible messages, now and then a synthetic output, the note before the last one. */
function sentOf(random: () => number, working: readonly Message[]): Message[] {
  const sent = working.filter((m) => m.agentVisible);
  if (random() < 0.3) sent.push(message(random, `aborted-${made}`));
  sent.splice(Math.max(0, sent.length - 1), 0, { ...message(random, NOTE), agentVisible: true });
  return sent;
}

describe('the change since the last reported request, kept as a running sum', () => {
  it('equals comparing both lists whole after appends, reports, pins, hiding, removals, rewrites and repeated ids', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const random = prng(seed);
      const change = new ChangeSinceReport((m) => m.id === NOTE);
      let working: Message[] = Array.from({ length: 20 }, () => message(random));
      let sent: Message[] = [];
      for (let step = 0; step < 150; step++) {
        const r = random();
        if (r < 0.35 || working.length < 3) working.push(message(random));
        else if (r < 0.55) {
          sent = sentOf(random, working);
          change.reported(sent, count);
        } else if (r < 0.65) {
          const at = Math.floor(random() * working.length);
          working[at] = { ...working[at], pinned: !working[at].pinned };
        } else if (r < 0.72) {
          const at = Math.floor(random() * working.length);
          working[at] = { ...working[at], agentVisible: !working[at].agentVisible };
        } else if (r < 0.8) working = working.filter((_, i) => i !== Math.floor(random() * working.length));
        else if (r < 0.87) working = [message(random), ...working.slice(Math.floor(random() * working.length))];
        else if (r < 0.92 && working.length) {
          // The same id twice (a repeated id), sometimes with other tokens; later removed again.
          const twin = working[Math.floor(random() * working.length)];
          working.push(random() < 0.5 ? twin : { ...twin, content: twin.content + 'y' });
        } else if (r < 0.97) working = working.filter((m, i) => working.findIndex((o) => o.id === m.id) === i);
        else {
          sent = [...sent, ...sent.slice(0, 2)];
          change.reported(sent, count);
        }
        assert.equal(change.since(working, count), wholeChange(working, sent), `seed ${seed}, step ${step}`);
      }
    }
  });

  it('made ahead of a reopened session\'s first report, a slice at a time: that report and the change after it read only what is new, and give the same figure', async () => {
    const random = prng(11);
    const working: Message[] = Array.from({ length: 30_000 }, () => message(random));
    const prepared = new ChangeSinceReport((m) => m.id === NOTE);
    const { turns } = await countTurns(() => prepared.prepare(working, working.filter((m) => m.agentVisible), count));
    assert.ok(turns >= 10, `${turns} turns of the event loop while 2 × 30,000 messages were mapped`);
    // The first turn: two messages, the request sends them with the note, the provider reports on it.
    working.push(message(random), message(random));
    const sent = sentOf(random, working);
    const before = listWork.idsMapped;
    prepared.reported(sent, count);
    const figure = prepared.since(working, count);
    assert.equal(figure, wholeChange(working, sent));
    // Each map follows its list by position (compared by identity), not made again.
    assert.equal(listWork.idsMapped - before, 0, 'a map was made whole on the first report');
    const plain = new ChangeSinceReport((m) => m.id === NOTE);
    plain.reported(sent, count);
    assert.equal(plain.since(working, count), figure);
  });

  it('a report that comes while the maps are being made is counted as without them', async () => {
    for (let seed = 1; seed <= 5; seed++) {
      const random = prng(seed);
      const working: Message[] = Array.from({ length: 12_000 }, () => message(random));
      const change = new ChangeSinceReport((m) => m.id === NOTE);
      const preparing = change.prepare(working, working.filter((m) => m.agentVisible), count);
      await new Promise<void>((resolve) => setImmediate(resolve));
      working.push(message(random));
      const sent = sentOf(random, working);
      change.reported(sent, count);
      working.splice(seed * 100, 1);
      assert.equal(change.since(working, count), wholeChange(working, sent), `seed ${seed}, during`);
      await preparing;
      working.push(message(random));
      assert.equal(change.since(working, count), wholeChange(working, sent), `seed ${seed}, after`);
    }
  });
});
