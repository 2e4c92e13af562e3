import * as assert from 'assert';
import type { Message } from '../../../../src/core/model/message';
import type { ChatEntry } from '../../../../src/protocol/chat';
import { agent, applyAll, stateOf } from '../../../support/sessionStates';

const base = { agentVisible: true, userVisible: true } as const;
const userMsg = (id: string, at: number): Message => ({ ...base, id, role: 'user', kind: 'user', content: id, createdAt: at });
const assistant = (id: string, at: number, calls: Array<[string, string]>): Message => ({
  ...base,
  id,
  role: 'assistant',
  kind: 'assistant',
  content: '',
  createdAt: at,
  toolCalls: calls.map(([callId, name]) => ({ id: callId, name, arguments: '{}' })),
});
const result = (id: string, at: number, callId: string, content: string): Message => ({ ...base, id, role: 'tool', kind: 'tool_result', content, toolCallId: callId, createdAt: at });

function cards(entries: ChatEntry[]) {
  return entries.flatMap((e) => (e.kind === 'assistant' ? e.toolCalls.map((c) => ({ entry: e.id, name: c.name, status: c.status, result: c.resultPreview })) : []));
}

describe('chat tool cards bind each result to its own call', () => {
  it('a call that reuses an earlier turn\'s id waits for approval instead of showing the old result', () => {
    const transcript = [
      userMsg('u1', 1),
      assistant('a1', 2, [['call_0', 'read_file']]),
      result('t1', 3, 'call_0', 'contents of a.ts'),
      userMsg('u2', 4),
      assistant('a2', 5, [['call_0', 'run_command']]),
    ];
    const state = stateOf(transcript);
    applyAll(state, [
      agent({ type: 'turn_start', userMessageId: 'u2' }),
      agent({ type: 'tool_call', call: { id: 'call_0', name: 'run_command', arguments: '{}' } }),
      agent({ type: 'approval_needed', request: { toolName: 'run_command', callId: 'call_0', title: 'Run `rm -rf build`', kind: 'command' } }),
    ]);
    assert.deepStrictEqual(cards(state.chatEntries()), [
      { entry: 'a1', name: 'read_file', status: 'done', result: 'contents of a.ts' },
      { entry: 'a2', name: 'run_command', status: 'awaiting_approval', result: undefined },
    ]);
  });

  it('repeated ids within one response and across turns each show the output that followed them', () => {
    const transcript = [
      userMsg('u1', 1),
      assistant('a1', 2, [['call_0', 'read_file'], ['call_0', 'list_files']]),
      result('t1', 3, 'call_0', 'read output'),
      result('t2', 4, 'call_0', 'list output'),
      userMsg('u2', 5),
      assistant('a2', 6, [['call_0', 'run_command']]),
      { ...result('t3', 7, 'call_0', 'The user denied running this command.'), meta: { isError: true, denied: true } },
    ];
    assert.deepStrictEqual(cards(stateOf(transcript).chatEntries()), [
      { entry: 'a1', name: 'read_file', status: 'done', result: 'read output' },
      { entry: 'a1', name: 'list_files', status: 'done', result: 'list output' },
      { entry: 'a2', name: 'run_command', status: 'denied', result: 'The user denied running this command.' },
    ]);
  });

  it('a card shows "denied" from the flag set where the denial happened, not from what the output says', () => {
    const transcript = [
      userMsg('u1', 1),
      assistant('a1', 2, [['call_1', 'run_command'], ['call_2', 'run_command']]),
      // A command that ran and happened to print this sentence was not denied.
      { ...result('t1', 3, 'call_1', 'The user denied nothing; this is a log line.'), meta: {} },
      { ...result('t2', 4, 'call_2', 'The user denied running this command.'), meta: { isError: true, denied: true } },
    ];
    assert.deepStrictEqual(cards(stateOf(transcript).chatEntries()).map((c) => c.status), ['done', 'denied']);
  });
});
