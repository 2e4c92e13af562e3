/**
 * The OpenAI body of a long session is sent as chunks, and no request copies the whole
 * conversation: the messages sent before go as one block that only grows at its end, and bytes
 * that went out with a body are never written again, even when a later request changes an earlier
 * message (a compaction) and the block is cut back.
 */
import { strict as assert } from 'assert';
import type { Message } from '../../../../src/core/model/message';
import { settledMessage } from '../../../../src/core/model/settledMessages';
import { DYNAMIC_NOTE_ID } from '../../../../src/core/prompt/promptSections';
import { OpenAIBodyBuilder } from '../../../../src/core/providers/openai/openaiBodyBytes';
import { toOpenAIBody, type OpenAIRequestOptions } from '../../../../src/core/providers/openai/openaiRequest';
import { message, READ_FILE, request, toolCall } from './harness';

const OPTIONS: OpenAIRequestOptions = { maxTokensField: 'max_tokens' };

function text(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/** A session of `turns` turns as the agent sends it: per request a new dynamic note before the latest user message. */
function turnRequests(history: Message[], turn: number): Message[][] {
  history.push(message({ role: 'user', content: `Turn ${turn}: list the files é🚀` }));
  const note = () => message({ role: 'user', kind: 'note', id: DYNAMIC_NOTE_ID, content: `Now: turn ${turn}.` });
  const withNote = () => {
    const lastUser = history.length - 1 - [...history].reverse().findIndex((m) => m.role === 'user' && m.kind === 'user');
    return [...history.slice(0, lastUser), note(), ...history.slice(lastUser)];
  };
  const first = withNote();
  const call = toolCall(`call_${turn}`, 'read_file', { path: `src/${turn}.ts` });
  history.push(message({ role: 'assistant', content: '', toolCalls: [call] }), message({ role: 'tool', content: `contents of ${turn}\n${'x'.repeat(turn)}`, toolCallId: call.id }));
  const second = withNote();
  history.push(message({ role: 'assistant', content: `Done with ${turn}.` }));
  return [first, second];
}

describe('OpenAI request bodies as chunks', () => {
  it('a growing session sends its earlier messages from one block that grows in place; each body is the JSON of the request', () => {
    const bodies = new OpenAIBodyBuilder();
    const history: Message[] = [];
    let blockBuffer: ArrayBufferLike | undefined;
    let moves = 0;
    let requests = 0;
    for (let turn = 0; turn < 60; turn++) {
      for (const messages of turnRequests(history, turn)) {
        const req = request(messages, { system: [{ text: 'You are Tally.' }], tools: [READ_FILE] });
        const body = bodies.chunks(req, OPTIONS);
        requests++;
        assert.equal(text(body.join()), JSON.stringify(toOpenAIBody(req, OPTIONS)), `turn ${turn}`);
        // Head, the block, a comma and bytes per message after it (the note moves, so the last turn's and this one's), the fields after the messages.
        assert.ok(body.parts.length <= 3 + 2 * 10, `turn ${turn}: ${body.parts.length} chunks`);
        const block = body.parts[1];
        if (turn > 1) {
          if (blockBuffer && block.buffer !== blockBuffer) moves++;
          blockBuffer = block.buffer;
        }
      }
    }
    // Once made, the block moves only when it outgrows its room (64 KB more than it holds): never in this session.
    assert.equal(moves, 0, `the block moved ${moves} times in ${requests} requests`);
  });

  it('bytes that went out with a body stay as they were when later requests change earlier messages', () => {
    const bodies = new OpenAIBodyBuilder();
    const history: Message[] = [];
    const sent: Array<{ parts: Uint8Array[]; text: string }> = [];
    for (let turn = 0; turn < 12; turn++) {
      if (turn === 6) {
        // A compaction: the oldest messages become one summary, so the next body differs from its third message on.
        history.splice(2, 10, message({ role: 'system', kind: 'summary', content: 'Summary of the first turns.' }));
      }
      if (turn === 9) {
        // A result offloaded in place: the same message object, new content.
        (history[4] as { content: string }).content = '[output offloaded: ref r1]';
      }
      for (const messages of turnRequests(history, turn)) {
        const req = request(messages, { system: turn % 4 === 3 ? [] : [{ text: 'You are Tally.' }] });
        const body = bodies.chunks(req, OPTIONS);
        const joined = text(body.join());
        assert.equal(joined, JSON.stringify(toOpenAIBody(req, OPTIONS)), `turn ${turn}`);
        sent.push({ parts: [...body.parts], text: joined });
      }
    }
    sent.forEach(({ parts, text: before }, i) => {
      const now = parts.map(text).join('');
      assert.equal(now, before, `the chunks of body ${i} changed after it was sent`);
    });
  });

  it('a long session\'s next body reads none of the settled messages it sent before, only the new ones', () => {
    // Each message counts the reads of its content: checking that a message is unchanged reads it.
    let reads = 0;
    const counted = (m: Message): Message => {
      const { content, ...rest } = m;
      return settledMessage(Object.defineProperty({ ...rest } as Message, 'content', { enumerable: true, get: () => (reads++, content) }));
    };
    const history: Message[] = [];
    for (let turn = 0; turn < 400; turn++) {
      const call = toolCall(`call_${turn}`, 'read_file', { path: `src/${turn}.ts` });
      history.push(counted(message({ role: 'user', content: `Turn ${turn}` })), counted(message({ role: 'assistant', content: '', toolCalls: [call] })), counted(message({ role: 'tool', content: `contents of ${turn}`, toolCallId: call.id })));
    }
    const bodies = new OpenAIBodyBuilder();
    const send = (messages: Message[]) => text(bodies.chunks(request(messages), OPTIONS).join());
    send(history);
    history.push(message({ role: 'assistant', content: 'Read them all.' }));
    send(history); // the messages sent before now go into the block, read once more for their bytes
    history.push(message({ role: 'user', content: 'Thanks.' }));
    reads = 0;
    const body = send(history);
    assert.equal(reads, 0, `the third body read ${reads} of the ${history.length - 2} settled messages it had sent`);
    assert.equal(body, JSON.stringify(toOpenAIBody(request(history), OPTIONS)));

    // A message that is not settled is still read, so a field replaced on it is noticed.
    const open = message({ role: 'user', content: 'open' });
    history.push(open);
    send(history);
    (open as { content: string }).content = 'changed';
    assert.ok(send(history).includes('"changed"'));
  });
});
