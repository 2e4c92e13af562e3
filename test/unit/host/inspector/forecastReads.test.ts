/**
 * The inspector's turn forecast reads the working context's user messages once, then only what is
 * appended: a compaction of a long session stores one result after another, and the inspector
 * posts a patch for each while the working context still holds every message.
 */
import { strict as assert } from 'assert';
import type { ContextBudget } from '../../../../src/core/accounting/budget';
import { assistantMessage, userMessage } from '../../../../src/core/model/factories';
import type { Message } from '../../../../src/core/model/message';
import type { RequestUsageRecord } from '../../../../src/core/model/records';
import type { BlobInfo } from '../../../../src/core/ports/blobStore';
import type { SessionInfo, SessionStore } from '../../../../src/core/ports/sessionStore';
import { DEFAULT_SETTINGS } from '../../../../src/core/settings';
import { InspectorFeed } from '../../../../src/host/inspector/inspectorFeed';
import { InspectorSubject } from '../../../../src/host/inspector/subagentSubject';
import type { WorkingContext } from '../../../../src/host/sessionState/sessionInputs';
import type { ActiveSession } from '../../../../src/host/sessionState/sessionPorts';
import type { HostToInspector } from '../../../../src/protocol/inspector';
import { stateOf } from '../../../support/sessionStates';

const MESSAGES = 10_000;
const STORED_RESULTS = 200;

function usage(requestIndex: number, createdAt: number, estimatedInputTokens: number): RequestUsageRecord {
  return { id: `r${requestIndex}`, sessionId: 's', requestIndex, createdAt, model: 'm', contextWindow: 200_000, maxOutputTokens: 1_000, estimatedInputTokens, components: { system: 1, skills: 0, tools: 0, messages: 1, toolResults: 0, summaries: 0 }, items: [] } as RequestUsageRecord;
}

function blob(n: number): BlobInfo {
  return { id: `ref_${n}`, sessionId: 's', toolName: 'run_command', byteSize: 100, lineCount: 3, sha256: `sha${n}`, createdAt: MESSAGES + n };
}

/** A long working context (a user message every 50), counting how many of its messages are read. */
function countedWorking(): { messages: readonly Message[]; reads: () => number } {
  const messages: Message[] = [];
  for (let i = 0; i < MESSAGES; i++) messages.push(i % 50 === 0 ? userMessage(`Task ${i / 50}`, { id: `u${i}`, createdAt: i }) : assistantMessage(`Step ${i}`, [], { id: `a${i}`, createdAt: i }));
  let reads = 0;
  const counted = new Proxy(messages, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver);
    },
  });
  return { messages: counted, reads: () => reads };
}

describe("the inspector's turn forecast during a long compaction", () => {
  it(`reads a ${MESSAGES.toLocaleString('en-US')}-message working context about once over ${STORED_RESULTS} patches of stored results, and forecasts the same turns`, async () => {
    const working = countedWorking();
    // One request per user message, each 500 tokens bigger than the one before.
    const requests = Array.from({ length: MESSAGES / 50 }, (_, i) => usage(i, i * 50 + 1, 1_000 + 500 * i));
    const state = stateOf([], { usage: requests });
    const budget = { used: 101_000, effectiveWindow: 190_000, compactAtTokens: 150_000, blockAtTokens: 180_000, percent: 53, estimated: 101_000, shouldCompact: () => false, isBlocked: () => false } as unknown as ContextBudget;
    const context: WorkingContext = { measure: () => budget, planNextRequest: () => ({ messages: [], items: [], budget, repaired: 0 }) as never, calibration: { view: () => ({ factor: 1, error: 0, samples: 0 }) }, messages: working.messages, fixed: {} };
    state.apply({ kind: 'resumed', context });
    const session: ActiveSession = { info: { id: 's', title: 'a session', createdAt: 1, updatedAt: 1 } as SessionInfo, state, contextSession: context as never, reads: {} as never };
    const store = { listSessions: async () => [], onSessionsChanged: () => () => undefined } as unknown as SessionStore;
    const posted: HostToInspector[] = [];
    const feed = new InspectorFeed({ post: (m) => void posted.push(m), current: async () => session, store: async () => store }, new InspectorSubject({ store: async () => store, settings: () => DEFAULT_SETTINGS }));
    await feed.whole();
    const whole = posted[0] as Extract<HostToInspector, { type: 'state' }>;
    assert.equal(whole.state.forecastTurns, MESSAGES / 50 - 1, 'every turn in the working context counted');
    assert.equal(whole.state.averageRequestGrowth, 500);
    assert.equal(whole.state.requestsUntilCompaction, (150_000 - 101_000) / 500);

    for (let n = 0; n < STORED_RESULTS; n++) {
      state.apply({ kind: 'change', change: { type: 'result', blob: blob(n), title: { toolName: 'run_command', requestIndex: requests.length } } });
      await feed.settled();
    }
    assert.equal(posted.filter((m) => m.type === 'update').length, STORED_RESULTS, 'one patch per stored result');
    assert.ok(working.reads() <= 2 * MESSAGES, `the working context's messages were read ${working.reads().toLocaleString('en-US')} times (${MESSAGES.toLocaleString('en-US')} messages, ${STORED_RESULTS} patches)`);

    // Messages appended to the same array are read once more each, and the forecast counts them.
    const before = working.reads();
    (working.messages as Message[]).push(userMessage('One more task', { id: 'u-last', createdAt: MESSAGES + STORED_RESULTS + 1 }));
    state.apply({ kind: 'change', change: { type: 'usage', record: usage(requests.length, MESSAGES + STORED_RESULTS + 2, 1_000 + 500 * requests.length) } });
    await feed.settled();
    const last = posted[posted.length - 1] as Extract<HostToInspector, { type: 'update' }>;
    assert.equal(last.state?.forecastTurns, MESSAGES / 50, 'the appended turn is counted');
    assert.ok(working.reads() - before <= 10, `appending one message read ${working.reads() - before} messages`);
  });
});
