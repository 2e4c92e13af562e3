/** The results a compaction stores reach the inspector in one post when it ends, not one post per result. */
import { strict as assert } from 'assert';
import type { ContextBudget } from '../../../../src/core/accounting/budget';
import { userMessage } from '../../../../src/core/model/factories';
import type { CompactionEventRecord } from '../../../../src/core/model/records';
import type { BlobInfo } from '../../../../src/core/ports/blobStore';
import type { SessionInfo, SessionStore } from '../../../../src/core/ports/sessionStore';
import { DEFAULT_SETTINGS } from '../../../../src/core/settings';
import { InspectorFeed } from '../../../../src/host/inspector/inspectorFeed';
import { InspectorSubject } from '../../../../src/host/inspector/subagentSubject';
import type { WorkingContext } from '../../../../src/host/sessionState/sessionInputs';
import type { ActiveSession } from '../../../../src/host/sessionState/sessionPorts';
import type { HostToInspector } from '../../../../src/protocol/inspector';
import { stateOf } from '../../../support/sessionStates';

function resumed(): ActiveSession {
  const state = stateOf([{ ...userMessage('Look around.', { id: 'u1', createdAt: 1 }), userVisible: true, agentVisible: true }]);
  const budget = { used: 1_000, effectiveWindow: 90_000, compactAtTokens: 70_000, blockAtTokens: 85_000, percent: 1.1, estimated: 1_000, shouldCompact: () => false, isBlocked: () => false } as unknown as ContextBudget;
  const context: WorkingContext = { measure: () => budget, planNextRequest: () => ({ messages: [], items: [], budget, repaired: 0 }) as never, calibration: { view: () => ({ factor: 1, error: 0, samples: 0 }) }, messages: [], fixed: {} };
  state.apply({ kind: 'resumed', context });
  return { info: { id: 's', title: 'a session', createdAt: 1, updatedAt: 1 } as SessionInfo, state, contextSession: context as never, reads: {} as never };
}

const blob = (n: number): BlobInfo => ({ id: `ref_${n}`, sessionId: 's', toolName: 'run_command', toolCallId: `call_${n}`, byteSize: 100, lineCount: 2, sha256: 'x', createdAt: 10 + n });
const record = { id: 'c1', sessionId: 's', trigger: 'manual', status: 'complete', strategies: ['tool-result-masking'], tokensBefore: 9_000, tokensAfter: 1_000, messagesBefore: 400, messagesAfter: 2, startedAt: 5, durationMs: 1, removed: [] } as CompactionEventRecord;

async function compactionPosts(results: number, compacting: boolean): Promise<{ posts: HostToInspector[]; titled: Set<string> }> {
  const session = resumed();
  const store = { listSessions: async () => [], onSessionsChanged: () => () => undefined } as unknown as SessionStore;
  const posts: HostToInspector[] = [];
  const feed = new InspectorFeed({ post: (m) => void posts.push(m), current: async () => session, store: async () => store }, new InspectorSubject({ store: async () => store, settings: () => DEFAULT_SETTINGS }));
  await feed.whole();
  posts.length = 0;
  if (compacting) session.state.apply({ kind: 'compaction', event: { type: 'start', id: 'c1', trigger: 'manual', tokensBefore: 9_000, messagesBefore: 400, dryRun: false } });
  for (let n = 0; n < results; n++) {
    session.state.apply({ kind: 'change', change: { type: 'result', blob: blob(n), title: { toolName: 'run_command', arguments: `{"command":"make ${n}"}`, requestIndex: 3 } } });
    await feed.settled(); // each result is stored on a turn of its own
  }
  if (compacting) {
    session.state.apply({ kind: 'change', change: { type: 'compaction', record } });
    session.state.apply({ kind: 'compaction', event: { type: 'complete', id: 'c1', record, dryRun: false } });
  }
  await feed.settled();
  const titled = new Set(posts.flatMap((p) => (p.type === 'update' ? Object.keys(p.blobTitles ?? {}) : [])));
  return { posts, titled };
}

describe('the inspector during a compaction that stores results', () => {
  it('is posted once for 500 results a compaction stored, with every result named; a turn’s results are each posted', async () => {
    const { posts, titled } = await compactionPosts(500, true);
    assert.equal(posts.length, 1, 'one post when the compaction is recorded');
    assert.equal(titled.size, 500, 'every stored result named in it');
    assert.ok(titled.has('ref_0') && titled.has('ref_499'));

    const turn = await compactionPosts(3, false);
    assert.equal(turn.posts.length, 3, 'outside a compaction each stored result shows at once');
  });
});
