/**
 * A reply stopped at one of the reply limits ends the turn with an error naming the limit, keeps
 * only the start of what was shown, and leaves the session usable: the next message is sent and
 * answered. A real AgentSession on a real sql.js store, against local servers that flood in each
 * provider's wire format.
 */
import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { AgentSession } from '../../../../src/core/agent/agentSession';
import type { AgentEvent } from '../../../../src/core/agent/events';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { SessionPrompt } from '../../../../src/core/prompt/sessionPrompt';
import { createChatProvider } from '../../../../src/core/providers/chatProviderFactory';
import type { ReplyLimits } from '../../../../src/core/providers/replyLimits';
import { withSettings } from '../../../../src/core/settings';
import { builtinTools } from '../../../../src/core/tools/builtin';
import { EndlessStreamServer, type EndlessStep, type EndlessWire } from '../../../fakes/endlessStreamServer';
import { tempStore } from '../../../support/tempStore';
import { testRegistry } from '../../../support/toolRegistry';

const SETTINGS = withSettings({ contextWindow: 64_000, maxOutputTokens: 2_000 });
// Thinking without a signature is cut at thinkingChars and read on to thinkingReadChars: both here, so every wire ends at one figure.
const LIMITS: Partial<ReplyLimits> = { textChars: 300_000, thinkingChars: 300_000, thinkingReadChars: 300_000, toolCallChars: 300_000, eventChars: 64 * 1024 };

async function agentOn(wire: EndlessWire, server: EndlessStreamServer) {
  const env = await tempStore('tally-reply-limits-');
  const sessionId = (await env.store.createSession({ title: 'limits' })).id;
  const counter = getTokenCounter();
  const contextSession = await ContextSession.open({ store: env.store, sessionId, settings: SETTINGS, counter });
  const tools = testRegistry({ tools: builtinTools(), folders: [] });
  const prompt = new SessionPrompt({ counter, settings: SETTINGS, tools: () => tools.definitions(), instructions: async () => undefined, skills: async () => [] });
  const provider = createChatProvider({
    provider: wire === 'anthropic' ? 'anthropic' : 'openai',
    apiKey: 'sk-test-limits',
    baseUrl: server.baseUrl,
    openaiApi: wire === 'openai-responses' ? 'responses' : 'chat-completions',
    retry: { maxAttempts: 1 },
    limits: LIMITS,
  });
  const agent = new AgentSession({ contextSession, provider, model: 'test-model', maxOutputTokens: 2_000, prompt, tools, streamRetries: 0 });
  const events: AgentEvent[] = [];
  agent.on((e) => events.push(e));
  return { agent, events, contextSession, dispose: env.dispose };
}

const FLOODS: Array<{ step: EndlessStep; named: RegExp }> = [
  { step: 'text', named: /the reply's text passed 300,000 characters/ },
  { step: 'thinking', named: /the reply's thinking passed 300,000 characters/ },
  { step: 'unended event', named: /one event of the stream passed 65,536 characters/ },
];

for (const wire of ['anthropic', 'openai-chat', 'openai-responses'] as const) {
  describe(`a turn whose reply passes a limit, then the next message: ${wire}`, function () {
    this.timeout(30_000);
    for (const { step, named } of FLOODS) {
      it(`${step}: the turn ends with the error naming the limit; the next message is sent, small, and answered`, async () => {
        const server = await new EndlessStreamServer(wire, [step, 'answer']).start();
        const { agent, events, contextSession, dispose } = await agentOn(wire, server);
        try {
          assert.equal(await agent.send('Tell me a long story.'), 'error');
          const error = events.find((e): e is Extract<AgentEvent, { type: 'error' }> => e.type === 'error');
          assert.equal(error?.kind, 'reply_limit');
          assert.match(error.message, named);
          const kept = contextSession.messages.filter((m) => m.role === 'assistant').map((m) => m.content).join('');
          assert.ok(kept.length < 10_000, `at most the start of the reply is kept (${kept.length} characters)`);
          if (step === 'text') assert.match(kept, /more characters not kept\]\n\[The response was cut off: .*the reply's text passed/);

          assert.equal(await agent.send('Just say ok.'), 'end_turn');
          assert.equal(contextSession.messages.at(-1)?.content, 'ok');
          assert.equal(server.bodies.length, 2);
          assert.ok(JSON.stringify(server.bodies[1]).length < 40_000, 'the next request does not carry the flood');
        } finally {
          agent.dispose();
          await server.close();
          await dispose();
        }
      });
    }
  });
}
