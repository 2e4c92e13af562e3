import { strict as assert } from 'assert';
import type { ToolRunOptions } from '../../../src/core/agent/toolRunner';
import { EXTERNAL_TOOLS_RESTRICTED, ExternalToolGate, type ApprovalAnswer } from '../../../src/core/tools/externalToolGate';
import type { ApprovalDecision, ApprovalRequest } from '../../../src/core/tools/types';

function harness(opts: { trusted?: boolean; allowed?: string[]; answers?: ApprovalAnswer[] } = {}) {
  const asked: ApprovalRequest[] = [];
  const shown: ApprovalRequest[] = [];
  const resolved: ApprovalDecision[] = [];
  const answers = [...(opts.answers ?? [])];
  const gate = new ExternalToolGate({
    trusted: () => opts.trusted ?? true,
    allowedByUser: () => opts.allowed ?? [],
    ask: async (request) => {
      asked.push(request);
      return answers.shift() ?? { approved: false };
    },
  });
  const options = (signal = new AbortController().signal): ToolRunOptions => ({ signal, onApprovalNeeded: (r) => shown.push(r), onApprovalResolved: (d) => resolved.push(d) });
  const call = (name = 'write_marker', callId = 'c1') => ({ callId, name, source: 'the extension test.marker', input: '{\n  "path": "/tmp/x"\n}' });
  return { gate, asked, shown, resolved, options, call };
}

describe('tools from other extensions and MCP servers', () => {
  it('ask on the approval card with the tool, its source and its input; a denial is the result the model reads', async () => {
    const h = harness({ answers: [{ approved: false }] });
    assert.equal(await h.gate.admit(h.call(), h.options()), 'The user denied running the tool write_marker.');
    assert.equal(h.shown.length, 1);
    assert.match(h.shown[0].title, /write_marker.*test\.marker/);
    assert.match(h.shown[0].detail ?? '', /"path": "\/tmp\/x"/);
    assert.equal(h.shown[0].allowForSession, 'write_marker');
    assert.deepEqual(h.resolved, ['denied']);
  });

  it('"Allow for this session" runs that tool again without asking; other tools still ask', async () => {
    const h = harness({ answers: [{ approved: true, forSession: true }, { approved: true }] });
    assert.equal(await h.gate.admit(h.call('write_marker', 'c1'), h.options()), undefined);
    assert.equal(await h.gate.admit(h.call('write_marker', 'c2'), h.options()), undefined);
    assert.equal(h.asked.length, 1, 'asked once');
    assert.equal(await h.gate.admit(h.call('other_tool', 'c3'), h.options()), undefined);
    assert.equal(h.asked.length, 2);
  });

  it('a single approval does not carry over to the next call', async () => {
    const h = harness({ answers: [{ approved: true }, { approved: false }] });
    assert.equal(await h.gate.admit(h.call('write_marker', 'c1'), h.options()), undefined);
    assert.notEqual(await h.gate.admit(h.call('write_marker', 'c2'), h.options()), undefined);
  });

  it('tools in the user\'s allow list run without asking', async () => {
    const h = harness({ allowed: ['write_marker'] });
    assert.equal(await h.gate.admit(h.call(), h.options()), undefined);
    assert.equal(h.asked.length, 0);
  });

  it('in Restricted Mode none is offered and a forced call is refused without asking, even when allowed', async () => {
    const h = harness({ trusted: false, allowed: ['write_marker'] });
    assert.deepEqual(h.gate.offered([{ name: 'write_marker' }]), []);
    assert.equal(await h.gate.admit(h.call(), h.options()), EXTERNAL_TOOLS_RESTRICTED);
    assert.equal(h.asked.length + h.shown.length, 0);
  });

  it('cancelling the turn while the card waits does not run the tool, and is not recorded as the user\'s denial', async () => {
    const h = harness();
    const controller = new AbortController();
    const gate = new ExternalToolGate({ trusted: () => true, allowedByUser: () => [], ask: () => new Promise(() => undefined) });
    const pending = gate.admit(h.call(), h.options(controller.signal));
    controller.abort();
    assert.equal(await pending, 'The turn was cancelled before the user answered; write_marker did not run.');
  });
});
