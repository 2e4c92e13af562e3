import { strict as assert } from 'assert';
import { subagentLinkOf, subagentOrigin, subagentSessions } from '../../../../../src/core/agent/subagents/sessionLink';
import { tempStore } from '../../../../support/tempStore';

describe('subagents: session links', () => {
  it('a link survives ids with separators, and only a subagent origin reads as one', () => {
    const link = { parentSessionId: 's/1:x', parentCallId: 'call/2%', agent: 'general' };
    assert.deepEqual(subagentLinkOf({ origin: subagentOrigin(link) }), link);
    assert.equal(subagentLinkOf({ origin: 'replay:run.jsonl' }), undefined);
    assert.equal(subagentLinkOf({ origin: 'subagent:only-one-part' }), undefined);
    assert.equal(subagentLinkOf({ origin: 'subagent:%E0%A4%A/a/b' }), undefined, 'a malformed escape is not a link');
  });

  it("lists a session's subagents, and only its own, from a real store", async () => {
    const env = await tempStore();
    const parent = await env.store.createSession({ title: 'parent' });
    const other = await env.store.createSession({ title: 'other' });
    await env.store.createSession({ title: 'a', origin: subagentOrigin({ parentSessionId: parent.id, parentCallId: 'c1', agent: 'general' }) });
    await env.store.createSession({ title: 'b', origin: subagentOrigin({ parentSessionId: other.id, parentCallId: 'c1', agent: 'general' }) });
    await env.store.flush();
    const found = await subagentSessions(env.store, parent.id);
    assert.deepEqual(found.map((f) => [f.info.title, f.link.parentCallId]), [['a', 'c1']]);
    await env.dispose();
  });
});
