import { strict as assert } from 'assert';
import { attachmentMessage } from '../../../../src/core/model/factories';
import type { Message } from '../../../../src/core/model/message';
import { ChatEntries } from '../../../../src/host/chat/chatEntries';
import { stateOf } from '../../../support/sessionStates';

const user = (id: string, createdAt: number): Message => ({ id, role: 'user', kind: 'user', content: `question ${id}`, agentVisible: true, userVisible: true, createdAt, tokens: 10 });
const attached = (id: string, label: string, createdAt: number, tokens: number, meta: Message['meta'] = {}): Message => ({ ...attachmentMessage({ kind: 'file', label, path: label }, `[Attached file ${label}]\n…`, { meta }), id, createdAt, tokens });

describe('the chat shows what was attached to a sent message as chips on it', () => {
  it('each attachment goes on the message it was sent with, with the tokens its request item carried', () => {
    const stored = { truncated: { originalBytes: 90_000, originalLines: 2_000, keptBytes: 1_000, omittedLines: 1_940, omittedBytes: 89_000 }, offloadRef: 'ref1' };
    const entries = stateOf([attached('a1', 'src/app.ts', 1, 124), attached('a2', 'logs/build.log', 2, 504, stored), user('u1', 3), user('u2', 4)]).chatEntries();
    assert.deepStrictEqual(entries.map((e) => e.kind === 'user' ? [e.id, e.attachments] : e.id), [
      ['u1', [
        { id: 'a1', kind: 'file', label: 'src/app.ts', tokens: 120 },
        { id: 'a2', kind: 'file', label: 'logs/build.log', tokens: 500, stored: { lines: 2_000, sentLines: 60 } },
      ]],
      ['u2', undefined],
    ]);
  });

  it('an attachment appended live lands on the user message appended with it', () => {
    const chat = new ChatEntries();
    chat.reset([user('u0', 1)], [], []);
    chat.append([attached('a1', 'src/app.ts', 2, 54), user('u1', 3)]);
    const entry = chat.entries().find((e) => e.kind === 'user' && e.id === 'u1');
    assert.deepStrictEqual(entry?.kind === 'user' && entry.attachments, [{ id: 'a1', kind: 'file', label: 'src/app.ts', tokens: 50 }]);
  });
});
