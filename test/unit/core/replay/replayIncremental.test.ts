import { strict as assert } from 'assert';
import { validateHistory } from '../../../../src/core/history/normalize';
import type { Message } from '../../../../src/core/model/message';
import { LiveResults, type ResultFacts } from '../../../../src/core/replay/liveResults';
import { PairingCheck } from '../../../../src/core/replay/pairingCheck';
import { RetentionTracker } from '../../../../src/core/replay/retention';
import { call, msg, prng } from '../../../support/syntheticSession';

/** A message whose content reads are counted, to see how often a check looks at each message. */
function counted(message: Message, reads: { n: number }): Message {
  const content = message.content;
  return Object.defineProperty({ ...message }, 'content', { enumerable: true, get: () => (reads.n++, content) });
}

describe('replay checks work on what each request changed', () => {
  it('the retention check looks at a message when it enters a request, not again in every later request', () => {
    const reads = { n: 0 };
    const tracker = new RetentionTracker({ systemText: 'You are a coding agent.' });
    const context: Message[] = [];
    const add = (m: Message) => {
      const c = counted(m, reads);
      tracker.entered(c);
      context.push(c);
    };
    add(msg({ role: 'user', content: 'Keep the public API of src/api.ts unchanged.' }));
    const requests = 300;
    for (let step = 0; step < requests; step++) {
      const c = call('read_file', { path: `src/module${step}.ts` });
      add(msg({ role: 'assistant', content: `Step ${step}.`, toolCalls: [c] }));
      add(msg({ role: 'tool', toolCallId: c.id, content: `contents of module ${step}` }));
      tracker.request(context.slice(), step === 0);
    }
    // Each message is read a few times in all (its facts, its references), however many requests carried it.
    assert.ok(reads.n < 10 * context.length, `${reads.n} reads of ${context.length} messages over ${requests} requests`);
  });

  it('the pairing check reports the same breaks as validateHistory while a history grows, changes and loses its start', () => {
    const random = prng(7);
    const check = new PairingCheck();
    let history: Message[] = [];
    const kinds = ['pair', 'pair', 'pair', 'unanswered', 'orphan', 'hidden', 'user', 'duplicate'] as const;
    for (let request = 0; request < 400; request++) {
      const kind = kinds[Math.floor(random() * kinds.length)];
      const c = call('run_command', { command: `step ${request}` });
      if (kind === 'pair' || kind === 'duplicate') {
        history.push(msg({ role: 'assistant', content: `step ${request}`, toolCalls: [c] }), msg({ role: 'tool', toolCallId: c.id, content: 'ok' }));
        if (kind === 'duplicate') history.push(msg({ role: 'tool', toolCallId: c.id, content: 'again' }));
      } else if (kind === 'unanswered') history.push(msg({ role: 'assistant', content: `step ${request}`, toolCalls: [c] }));
      else if (kind === 'orphan') history.push(msg({ role: 'tool', toolCallId: `gone-${request}`, content: 'late output' }));
      else if (kind === 'hidden') history.push({ ...msg({ role: 'user', content: 'note' }), agentVisible: false });
      else history.push(msg({ role: 'user', content: 'go on' }));
      const roll = random();
      if (roll < 0.05) history = history.slice(Math.floor(history.length / 2)); // compacted: the start goes
      else if (roll < 0.1 && history.length > 2) history.splice(history.length - 2, 1); // a message in the tail replaced by nothing
      else if (roll < 0.15) history = history.map((m) => (random() < 0.1 ? { ...m } : m)); // some messages are new objects
      const sent = history.slice();
      assert.deepEqual(check.check(sent), validateHistory(sent), `request ${request}`);
    }
  });

  it('the removed-result check counts whole and reachable results as a full recount of each request does', () => {
    const random = prng(11);
    const resolving = new Map<string, string>(); // ref → call whose stored result it opens
    for (let k = 0; k < 40; k++) if (random() < 0.7) resolving.set(`ref${k}`, `call${k % 25}`);
    const live = new LiveResults((ref) => resolving.get(ref));
    const pick = () => `ref${Math.floor(random() * 40)}`;
    let request: ResultFacts[] = [];
    for (let step = 0; step < 500; step++) {
      const gone = request.filter(() => random() < 0.1);
      const came = Array.from({ length: Math.floor(random() * 4) }, () => ({ call: random() < 0.6 ? `call${Math.floor(random() * 25)}` : undefined, refs: random() < 0.5 ? [pick()] : [] }));
      for (const m of gone) live.leave(m);
      for (const m of came) live.come(m);
      request = request.filter((m) => !gone.includes(m)).concat(came);
      const whole = new Set(request.flatMap((m) => (m.call ? [m.call] : [])));
      const reachable = new Set(request.flatMap((m) => m.refs.map((ref) => resolving.get(ref)).filter((c): c is string => c !== undefined && !whole.has(c))));
      assert.equal(live.wholeCount, whole.size, `step ${step}`);
      assert.equal(live.reachableCount, reachable.size, `step ${step}`);
      for (let c = 0; c < 25; c++) assert.equal(live.reaches(`call${c}`), reachable.has(`call${c}`), `step ${step} call${c}`);
    }
  });
});
