/**
 * A reply whose thinking or answer is megabytes is counted in slices, with turns of the event loop
 * between them: no synchronous count is given more than a slice of text, whatever the reply's size.
 * Counted in characters handed to the synchronous counter, never in time; the counts stay exact.
 */
import { strict as assert } from 'assert';
import { countMessage } from '../../../../src/core/accounting/messageTokens';
import { getTokenCounter, type TokenCounter } from '../../../../src/core/accounting/tokenizer';
import { ContextSession } from '../../../../src/core/context/contextSession';
import type { ReasoningBlock } from '../../../../src/core/model/message';
import { withSettings } from '../../../../src/core/settings';
import { tempStore } from '../../../support/tempStore';

/** The longest text a synchronous count was given; sliced counts are the real counter's. */
function watchedCounter(): { counter: TokenCounter; longestSync(): number } {
  const real = getTokenCounter('o200k_base');
  let longest = 0;
  const counter: TokenCounter = {
    encoding: real.encoding,
    count: (text) => {
      longest = Math.max(longest, text.length);
      return real.count(text);
    },
    countAsync: (text) => real.countAsync(text),
    load: () => real.load(),
  };
  return { counter, longestSync: () => longest };
}

const thinkingOf = (chars: number) => 'Let me check whether the cache is invalidated after the write. '.repeat(Math.ceil(chars / 63)).slice(0, chars);
/** What the counter may be handed at once (the sliced count's own slice). */
const SLICE_CHARS = 64 * 1024;

describe('a large reply entering the session', function () {
  this.timeout(60_000);

  for (const format of ['openai-chat', 'anthropic'] as const) {
    it(`counts 1 MB of ${format} thinking and a 1 MB answer in slices, and the counts are exact`, async () => {
      const env = await tempStore();
      const { counter, longestSync } = watchedCounter();
      const exact = getTokenCounter('o200k_base');
      const session = await ContextSession.open({ store: env.store, sessionId: (await env.store.createSession({ title: 'large reply' })).id, settings: withSettings({ contextWindow: 20_000_000, maxOutputTokens: 4_000 }), counter });
      try {
        const thinking = thinkingOf(1024 * 1024);
        const answer = `The offset was counted twice.\n${'x = x + 1\n'.repeat(100_000)}`;
        const block: ReasoningBlock = format === 'anthropic' ? { format, text: thinking, signature: 'sig' } : { format, text: thinking };
        const message = await session.appendAssistant(answer, [], [block]);
        assert.ok(longestSync() <= SLICE_CHARS, `the synchronous counter was given ${longestSync()} characters at once`);
        assert.equal(message.meta?.thinkingTokens, exact.count(thinking));
        assert.equal(message.meta?.reasoningTokens, format === 'anthropic' ? exact.count(thinking) : 0);
        assert.equal(session.count(message), countMessage({ ...message }, exact), 'the message counts as a count from scratch does');
      } finally {
        await env.dispose();
      }
    });
  }
});
