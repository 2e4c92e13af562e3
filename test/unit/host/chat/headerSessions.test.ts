import { strict as assert } from 'assert';
import { subagentOrigin } from '../../../../src/core/agent/subagents/sessionLink';
import type { SessionInfo } from '../../../../src/core/ports/sessionStore';
import { headerSessions } from '../../../../src/host/chat/sessionListing';

const session = (id: string, title: string, updatedAt: number, origin = 'chat'): SessionInfo => ({ id, title, createdAt: 0, updatedAt, origin });

describe("the chat header's list of sessions", () => {
  it('leaves out subagents\' sessions and sessions that never got a message, but keeps the one shown', () => {
    const sessions = [
      session('s-1', 'Fix the config loader', 30),
      session('s-2', 'New session', 40),
      session('s-3', 'New session', 50),
      session('s-4', 'general: find the tests of the loader', 35, subagentOrigin({ parentSessionId: 's-1', parentCallId: 'c1', agent: 'general' })),
      session('s-5', 'Rename the flag', 20),
    ];
    assert.deepEqual(headerSessions(sessions, 's-3').map((s) => s.id), ['s-3', 's-1', 's-5']);
    assert.deepEqual(headerSessions(sessions).map((s) => s.title), ['Fix the config loader', 'Rename the flag']);
  });
});
