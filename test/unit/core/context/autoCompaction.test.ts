import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import type { FixedComponents } from '../../../../src/core/accounting/usageBasis';
import { LOW_YIELD_SHARE } from '../../../../src/core/context/autoCompaction';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { assistantMessage, userMessage } from '../../../../src/core/model/factories';
import type { SessionStore } from '../../../../src/core/ports/sessionStore';
import { withSettings, type ContextSettings } from '../../../../src/core/settings';
import { seededRandom } from '../../../support/seededRandom';
import { tempStore } from '../../../support/tempStore';

const counter = getTokenCounter('o200k_base');
const FIXED: FixedComponents = { system: 120, skills: 0, tools: 80 };
const WORDS = 'parser config logger cache route schema token buffer index queue retry timeout socket build test lint'.split(' ');
const SEEDS = [10, 23, 36, 41, 58, 67];

function words(random: ReturnType<typeof seededRandom>, n: number): string {
  return Array.from({ length: n }, () => random.pick(WORDS)).join(' ');
}

async function open(store: SessionStore, settings: ContextSettings): Promise<{ session: ContextSession; starts: string[] }> {
  const sessionId = (await store.createSession({ title: 'auto compaction' })).id;
  const session = await ContextSession.open({ store, sessionId, settings, counter });
  const starts: string[] = [];
  session.onCompaction((event) => {
    if (event.type === 'start' && !event.dryRun) starts.push(event.trigger);
  });
  return { session, starts };
}

describe('automatic compaction: the setting and the loop guard', function () {
  this.timeout(120_000);
  let env: Awaited<ReturnType<typeof tempStore>>;
  beforeEach(async () => (env = await tempStore()));
  afterEach(async () => env.dispose());

  it('with automatic compaction off, never compacts by itself: the request is held at the hard block until sent anyway or compacted by hand (generated sessions)', async () => {
    const settings = withSettings({ contextWindow: 4_000, maxOutputTokens: 500, compactTrigger: 0.6, hardBlock: 0.8, autoCompact: false });
    for (const seed of SEEDS) {
      const random = seededRandom(seed);
      const { session, starts } = await open(env.store, settings);
      let held = false;
      for (let turn = 0; turn < 200 && !held; turn++) {
        await session.append(userMessage(`${turn}: ${words(random, 10 + random.int(60))}`), assistantMessage(words(random, 20 + random.int(120))));
        const measured = session.measure(FIXED);
        const request = await session.nextRequest({ fixed: FIXED });
        assert.equal(starts.length, 0, `seed ${seed}: turn ${turn} compacted by itself`);
        assert.equal(request.compaction, undefined, `seed ${seed}`);
        if (measured.isBlocked()) {
          assert.equal(request.status, 'blocked', `seed ${seed}: a request at the hard block must not be sent silently`);
          assert.deepEqual(request.hold, { reason: 'auto_off' }, `seed ${seed}`);
          held = true;
        } else {
          assert.equal(request.status, 'ready', `seed ${seed}: turn ${turn} at ${Math.round(measured.percent * 100)}%`);
          assert.equal(request.hold, undefined);
        }
      }
      assert.ok(held, `seed ${seed}: the generated session never reached the hard block`);
      const anyway = await session.nextRequest({ fixed: FIXED }, undefined, { overBlock: true });
      assert.equal(anyway.status, 'ready', `seed ${seed}: send anyway plans the request uncompacted`);
      assert.equal(starts.length, 0, `seed ${seed}`);
      const manual = await session.compact({ trigger: 'manual', fixed: FIXED });
      assert.equal(manual.status, 'complete', `seed ${seed}: compacting by hand still works with automatic compaction off`);
      const after = await session.nextRequest({ fixed: FIXED });
      assert.equal(after.status, 'ready', `seed ${seed}`);
      assert.deepEqual((await env.store.listCompactionEvents(session.sessionId)).map((e) => e.trigger), ['manual'], `seed ${seed}`);
    }
  });

  it('stops the automatic loop after two compactions in a row that free too little, says what is left, and resumes once the context grew or the user compacts (generated sessions)', async () => {
    for (const seed of SEEDS) {
      const random = seededRandom(seed);
      // Half the seeds have the hard block just above the trigger: the stopped loop then holds the request there.
      const blockNear = seed % 2 === 1;
      const settings = withSettings({ contextWindow: 4_000, maxOutputTokens: 500, compactTrigger: 0.6, hardBlock: blockNear ? 0.62 : 0.95 });
      const { session, starts } = await open(env.store, settings);
      const least = Math.ceil(session.measure(FIXED).effectiveWindow * LOW_YIELD_SHARE);
      // Pinned items fill most of the room before the trigger: nothing else is worth compacting.
      const pinnedShare = 0.45 + random.next() * 0.08;
      let pinnedTokens = 0;
      while (session.measure(FIXED).percent < pinnedShare) {
        const [pinned] = await session.append(userMessage(`keep: ${words(random, 60 + random.int(40))}`));
        await session.setPinned(pinned.id, true);
        await session.append(assistantMessage('noted'));
      }
      for (const m of session.messages) if (m.pinned) pinnedTokens += session.count(m);
      let stoppedAt: number | undefined;
      let kept: NonNullable<typeof session.autoCompaction.stop> | undefined;
      let resumed = false;
      let heldByGuard = false;
      for (let turn = 0; turn < 400 && !resumed; turn++) {
        await session.append(userMessage(`${turn}: ${words(random, 4 + random.int(10))}`), assistantMessage(words(random, 4 + random.int(12))));
        const before = starts.length;
        const measured = session.measure(FIXED);
        const request = await session.nextRequest({ fixed: FIXED });
        const stop = session.autoCompaction.stop;
        if (stoppedAt === undefined && stop) {
          stoppedAt = turn;
          kept = stop;
          const records = await env.store.listCompactionEvents(session.sessionId);
          const record = records.at(-1)!;
          assert.deepEqual(record.autoStopped, stop, `seed ${seed}: the stop is kept on the compaction's record, for the inspector's history`);
          assert.ok(stop.freedTokens < least && stop.runs === 2, `seed ${seed}: ${JSON.stringify(stop)}`);
          assert.equal(stop.left.pinned, pinnedTokens, `seed ${seed}: the pinned items' tokens`);
          assert.ok(stop.left.latestTurn > 0, `seed ${seed}`);
          assert.deepEqual([stop.left.system, stop.left.tools], [120, 80], `seed ${seed}`);
          assert.equal(stop.resumeAtTokens, record.tokensAfter + least);
          assert.equal(request.compaction?.autoStopped, stop);
          continue;
        }
        if (stoppedAt === undefined) continue;
        if (measured.used < kept!.resumeAtTokens) {
          assert.equal(starts.length, before, `seed ${seed}: turn ${turn} compacted again at ${measured.used} tokens though the loop stopped until ${kept!.resumeAtTokens}`);
          if (measured.isBlocked()) {
            assert.equal(request.status, 'blocked', `seed ${seed}`);
            assert.equal(request.hold?.reason, 'loop_guard', `seed ${seed}: the held request says the loop guard stopped it`);
            heldByGuard = true;
          }
        } else {
          assert.equal(starts.length, before + 1, `seed ${seed}: automatic compaction resumes once the context grew by the share`);
          resumed = true;
        }
      }
      assert.notEqual(stoppedAt, undefined, `seed ${seed}: the loop never stopped`);
      console.log(`seed ${seed}: stopped at turn ${stoppedAt}, held ${heldByGuard}, resumed ${resumed}, starts ${starts.join(",")}`);
      if (blockNear) assert.ok(heldByGuard, `seed ${seed}: the request at the hard block was never held`);
      assert.ok(resumed, `seed ${seed}: automatic compaction never resumed`);
      // By hand, the guard starts over.
      if (session.autoCompaction.stop) {
        await session.compact({ trigger: 'manual', fixed: FIXED });
        assert.equal(session.autoCompaction.stop, undefined, `seed ${seed}: a compaction by hand lets automatic compaction run again`);
      }
    }
  });
});
