import { strict as assert } from 'assert';
import type { ContextSession } from '../../../../src/core/context/contextSession';
import type { ToolContext } from '../../../../src/core/tools/types';
import { sessionTools } from '../../../../src/core/tools/sessionTools';
import { readResult } from '../../../../src/core/toolOutput/readResult';
import { tempStore } from '../../../support/tempStore';

describe('read_result reads only the results of the session the agent works in', function () {
  this.timeout(60_000);
  let env: Awaited<ReturnType<typeof tempStore>>;
  afterEach(() => env.dispose());

  it('a ref id learned or guessed from another session is refused; the session’s own still reads', async () => {
    env = await tempStore('tally-read-result-owner-');
    const a = await env.store.createSession({ title: 'workspace A' });
    const b = await env.store.createSession({ title: 'workspace B' });
    const secret = await env.store.putBlob(a.id, { toolName: 'run_command', content: Buffer.from('DATABASE_URL=postgres://admin:pw@db\n') });
    const own = await env.store.putBlob(b.id, { toolName: 'run_command', content: Buffer.from('build ok\n') });

    // The tool as the agent of a session in workspace B holds it.
    const tool = sessionTools(env.store, () => ({ sessionId: b.id }) as unknown as ContextSession).find((t) => t.definition.name === 'read_result')!;
    const ctx = {} as ToolContext;
    await assert.rejects(tool.execute({ ref_id: secret.id }, ctx), new RegExp(`^Error: no stored result ${secret.id} in this session$`));
    await assert.rejects(tool.execute({ ref_id: secret.id, offset: 5, limit: 10 }, ctx), /no stored result .* in this session/);
    assert.match((await tool.execute({ ref_id: own.id }, ctx)).output as string, /^\[bytes 0–9 of 9\. This is the end\.\]\nbuild ok\n$/);

    await assert.rejects(readResult(env.store, b.id, { ref_id: secret.id }), /no stored result .* in this session/);
    assert.match(await readResult(env.store, a.id, { ref_id: secret.id, limit: 12 }), /\nDATABASE_URL$/, 'the owner reads it');
  });
});
