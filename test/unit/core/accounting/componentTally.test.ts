import { strict as assert } from 'assert';
import { addComponentTokens, emptyComponents } from '../../../../src/core/accounting/budget';
import { ComponentTally } from '../../../../src/core/accounting/componentTally';
import type { Message, MessageKind } from '../../../../src/core/model/message';
import type { ComponentTokens } from '../../../../src/core/model/records';
import { prng } from '../../../support/syntheticSession';

const KINDS: Array<[Message['role'], MessageKind]> = [
  ['user', 'user'],
  ['assistant', 'assistant'],
  ['tool', 'tool_result'],
  ['tool', 'aborted'],
  ['user', 'summary'],
  ['user', 'tool_summary'],
  ['tool', 'tool_result_archived'],
  ['system', 'note'],
];

let made = 0;
function randomMessage(random: () => number): Message {
  const [role, kind] = KINDS[Math.floor(random() * KINDS.length)];
  made++;
  return { id: `k${made}`, role, kind, content: 'x'.repeat(1 + Math.floor(random() * 50)), agentVisible: random() > 0.2, userVisible: true, createdAt: made };
}

const count = (m: Message) => m.content.length + 4;

/** The plain sum over every message, which the tally must always equal. */
function summedAfresh(messages: readonly Message[], countOne: (m: Message) => number): ComponentTokens {
  const sums = emptyComponents();
  for (const m of messages) addComponentTokens(sums, m, countOne, 1);
  return sums;
}

describe('component sums kept up to date', () => {
  it('adds up exactly what a fresh sum gives after appends, replacements, hiding, removals and rewrites', () => {
    const random = prng(5);
    const tally = new ComponentTally();
    let history: Message[] = [];
    for (let step = 0; step < 300; step++) {
      const r = random();
      if (r < 0.5 || history.length < 5) history.push(randomMessage(random));
      else if (r < 0.65) {
        const at = Math.floor(random() * history.length);
        history[at] = { ...history[at], pinned: true };
      } else if (r < 0.75) {
        const at = Math.floor(random() * history.length);
        history[at] = { ...history[at], agentVisible: !history[at].agentVisible };
      } else if (r < 0.85) history = history.slice(0, history.length - 1 - Math.floor(random() * 3));
      else if (r < 0.95) history = [randomMessage(random), ...history.slice(Math.floor(random() * history.length))];
      else history = [...history].reverse();
      assert.deepEqual(tally.componentsFor(history, count), summedAfresh(history, count), `step ${step}`);
    }
  });

  it('starts over for another count function', () => {
    const random = prng(6);
    const history = Array.from({ length: 20 }, () => randomMessage(random));
    const tally = new ComponentTally();
    tally.componentsFor(history, count);
    const double = (m: Message) => 2 * count(m);
    assert.deepEqual(tally.componentsFor(history, double), summedAfresh(history, double));
  });
});
