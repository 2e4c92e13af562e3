/**
 * A subagent sends its requests through its parent's provider. Each conversation keeps its own body
 * builder, so the parent's next body after a delegation reuses the bytes of its last one instead of
 * being built again message by message, and every body stays the bytes a fresh build gives.
 */
import { strict as assert } from 'assert';
import type { Message } from '../../../../src/core/model/message';
import { AnthropicBodyBuilder } from '../../../../src/core/providers/anthropic/anthropicBodyBytes';
import { ConversationBodies } from '../../../../src/core/providers/http/conversationBodies';
import { OpenAIBodyBuilder } from '../../../../src/core/providers/openai/openaiBodyBytes';
import type { ByteChunks } from '../../../../src/core/providers/http/bodyBytes';
import type { ProviderRequest } from '../../../../src/core/providers/types';
import { message, request } from './harness';

function conversation(turns: number, label: string): Message[] {
  const messages: Message[] = [];
  for (let i = 0; i < turns; i++) {
    messages.push(message({ role: 'user', content: `${label} question ${i}` }));
    messages.push(message({ role: 'assistant', content: `${label} answer ${i}` }));
  }
  return messages;
}

const FORMATS: Array<{ name: string; make: () => { chunks(r: ProviderRequest): ByteChunks } }> = [
  { name: 'Anthropic', make: () => { const b = new AnthropicBodyBuilder(); return { chunks: (r) => b.chunks(r) }; } },
  { name: 'OpenAI', make: () => { const b = new OpenAIBodyBuilder(); return { chunks: (r) => b.chunks(r, { maxTokensField: 'max_tokens' }) }; } },
];

for (const format of FORMATS) {
  describe(`${format.name} bodies of a parent and its subagents through one provider`, () => {
    it("the parent's body after a delegation reuses its last body's bytes (a few pieces, not two a message), and equals a fresh build", () => {
      const bodies = new ConversationBodies(format.make);
      const parent = conversation(1_000, 'parent');
      const parentBuilder = bodies.for(parent);
      parentBuilder.chunks(request(parent));
      const subagent = conversation(2, 'subagent');
      bodies.for(subagent).chunks(request(subagent));
      subagent.push(message({ role: 'user', content: 'subagent more' }));
      bodies.for(subagent).chunks(request(subagent));
      parent.push(message({ role: 'user', content: 'parent goes on after the report' }));
      assert.equal(bodies.for(parent), parentBuilder, "the parent's builder, with its last body, survives the subagent's requests");
      const next = bodies.for(parent).chunks(request(parent));
      // OpenAI's builder sends the messages it kept as one piece; a fresh one sends two a message.
      if (format.name === 'OpenAI') assert.ok(next.parts.length < 40, `${next.parts.length} pieces for ${parent.length} messages`);
      assert.deepEqual(Buffer.from(next.join()), Buffer.from(format.make().chunks(request(parent)).join()));
    });

    it('keeps the builders of eight conversations, the least recently used going first', () => {
      const bodies = new ConversationBodies(format.make);
      const lists = Array.from({ length: 9 }, (_, i) => conversation(1, `c${i}`));
      const first = bodies.for(lists[0]);
      for (const list of lists.slice(1, 8)) bodies.for(list);
      assert.equal(bodies.for(lists[0]), first, 'the eighth conversation still has its builder');
      bodies.for(lists[8]);
      assert.notEqual(bodies.for(lists[1]), undefined);
      assert.equal(bodies.for(lists[0]), first, 'used most recently before the ninth came, it stayed');
    });
  });
}
