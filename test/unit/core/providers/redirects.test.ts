/**
 * A key or a prompt never follows a redirect to another origin: the user's server answering
 * 301/302/303/307/308 with a Location on another local port gets a clear error naming both, and the
 * server on that port (which records everything) sees neither the key nor the prompt, for the
 * model listing, the window probe and chat, with every HTTP provider. A redirect within the same
 * origin still works.
 */
import { strict as assert } from 'assert';
import { createAnthropicProvider } from '../../../../src/core/providers/anthropic/anthropic';
import { listModels, type CatalogProvider } from '../../../../src/core/providers/models/modelCatalog';
import { createOpenAIProvider } from '../../../../src/core/providers/openai/openai';
import type { ChatProvider } from '../../../../src/core/providers/types';
import { MAX_REDIRECTS } from '../../../../src/core/providers/http/sameOriginFetch';
import { servedWindow } from '../../../../src/core/providers/models/servedWindow';
import { FakeAnthropicServer } from '../../../fakes/anthropicServer';
import { RecordingServer, RedirectingServer } from '../../../fakes/hostileServers';
import { FakeAnthropicCatalogServer, FakeLocalModelServer } from '../../../fakes/modelListServers';
import { FakeOpenAIServer } from '../../../fakes/openaiServer';
import type { FakeReply, RecordedRequest } from '../../../fakes/scriptedServer';
import { message, request, run, textOf } from './harness';

const ANTHROPIC_KEY = 'sk-ant-api03-REDIRECTED-KEY-0123456789';
const OPENAI_KEY = 'sk-proj-REDIRECTED-KEY-0123456789';
const PROMPT = 'PROMPT-MARKER-4b1d: the plan for the new parser';

type HttpProviderKind = 'anthropic' | 'openai' | 'openai-compatible';
const KEYS: Record<HttpProviderKind, string> = { anthropic: ANTHROPIC_KEY, openai: OPENAI_KEY, 'openai-compatible': OPENAI_KEY };
const PROVIDERS: HttpProviderKind[] = ['anthropic', 'openai', 'openai-compatible'];

/** Each provider as the extension builds it (host/modelService.ts), tried once. */
function httpProvider(kind: HttpProviderKind, apiKey: string, baseUrl: string): ChatProvider {
  const retry = { maxAttempts: 1 };
  return kind === 'anthropic' ? createAnthropicProvider({ apiKey, baseUrl, retry }) : createOpenAIProvider({ id: kind, apiKey, baseUrl, retry });
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Where a redirect within the server's own origin points: `/old/...` moves to `/...`. */
function fromOld(request: RecordedRequest, status: number): FakeReply | undefined {
  if (!request.path.startsWith('/old/')) return undefined;
  return { type: 'error', status, body: 'moved', headers: { location: request.path.slice('/old'.length) } };
}

for (const status of [301, 302, 303, 307, 308]) {
  describe(`a ${status} redirect to another origin`, () => {
    let elsewhere: RecordingServer;
    let mover: RedirectingServer;

    beforeEach(async () => {
      elsewhere = await new RecordingServer().start();
      mover = await new RedirectingServer({ status, target: elsewhere.origin }).start();
    });
    afterEach(async () => {
      await mover.close();
      await elsewhere.close();
    });

    const baseUrl = (kind: HttpProviderKind) => (kind === 'anthropic' ? mover.origin : `${mover.origin}/v1`);

    function assertNothingLeaked(key: string): void {
      const seen = elsewhere.seenText();
      assert.ok(!seen.includes(key), `the key reached ${elsewhere.origin}`);
      assert.ok(!seen.includes(PROMPT), `the prompt reached ${elsewhere.origin}`);
    }

    function assertNamesBoth(text: string | undefined): void {
      assert.match(text ?? '', new RegExp(`The server at ${escaped(mover.origin)} redirected to ${escaped(elsewhere.origin)}/\\S* \\(another origin\\); Tally did not follow it, so neither your key nor your prompt was sent there`));
    }

    it('model listing (Anthropic, OpenAI, OpenAI-compatible) sends the key nowhere else and says where the server pointed', async () => {
      for (const provider of PROVIDERS as CatalogProvider[]) {
        const result = await listModels({ provider, baseUrl: baseUrl(provider), apiKey: KEYS[provider], timeoutMs: 5_000 });
        assertNothingLeaked(KEYS[provider]);
        assert.ok(!result.ok, `${provider}: the listing should fail, not show the other origin's models`);
        assert.equal(result.failure, 'redirected');
        assertNamesBoth(result.message);
      }
    });

    it('chat (Anthropic, OpenAI, OpenAI-compatible) sends neither the key nor the prompt elsewhere, and is not retried', async () => {
      for (const kind of PROVIDERS) {
        const provider = httpProvider(kind, KEYS[kind], baseUrl(kind));
        const before = mover.requests.length;
        const { error } = await run(provider, request([message({ role: 'user', content: PROMPT })]));
        assertNothingLeaked(KEYS[kind]);
        assert.equal(error?.kind, 'bad_request', `${kind}: ${error?.message}`);
        assert.equal(error.retryable, false);
        assertNamesBoth(error.message);
        assert.equal(mover.requests.length, before + 1, 'one request to the user’s server, no retry');
      }
    });

    it('the served-window probe of a session that opens sends the key nowhere else and says why it has no window', async () => {
      const served = await servedWindow({ baseUrl: `${mover.origin}/v1`, model: 'qwen2.5-coder:14b', apiKey: OPENAI_KEY });
      assertNothingLeaked(OPENAI_KEY);
      assert.equal(served?.tokens, undefined);
      assertNamesBoth(served?.note);
    });
  });
}

describe('a redirect within the same origin', () => {
  it('model listing follows it, with the key, for OpenAI-compatible and Anthropic servers', async () => {
    class MovedVllm extends FakeLocalModelServer {
      protected override validate(request: RecordedRequest): FakeReply | undefined {
        return fromOld(request, 308) ?? super.validate(request);
      }
    }
    class MovedCatalog extends FakeAnthropicCatalogServer {
      protected override validate(request: RecordedRequest): FakeReply | undefined {
        return fromOld(request, 302) ?? super.validate(request);
      }
    }
    const vllm = await new MovedVllm({ flavour: 'vllm', apiKey: OPENAI_KEY, models: [{ id: 'Qwen/Qwen2.5-Coder-14B-Instruct', trainedWindow: 16_384 }] }).start();
    const anthropic = await new MovedCatalog({ apiKey: ANTHROPIC_KEY, models: [{ id: 'claude-test-1', display_name: 'Claude Test 1' }] }).start();
    try {
      const local = await listModels({ provider: 'openai-compatible', baseUrl: `${vllm.url.replace(/\/v1$/, '')}/old/v1`, apiKey: OPENAI_KEY });
      assert.ok(local.ok, local.ok ? '' : local.message);
      assert.deepEqual(local.models.map((m) => [m.id, m.contextWindow]), [['Qwen/Qwen2.5-Coder-14B-Instruct', 16_384]]);
      const claude = await listModels({ provider: 'anthropic', baseUrl: `${anthropic.url}/old`, apiKey: ANTHROPIC_KEY });
      assert.ok(claude.ok, claude.ok ? '' : claude.message);
      assert.deepEqual(claude.models.map((m) => m.label), ['Claude Test 1']);
    } finally {
      await vllm.close();
      await anthropic.close();
    }
  });

  it('chat follows a 307/308 with the same body for Anthropic and OpenAI', async () => {
    class MovedAnthropic extends FakeAnthropicServer {
      protected override validate(request: RecordedRequest): FakeReply | undefined {
        return fromOld(request, 307) ?? super.validate(request);
      }
    }
    class MovedOpenAI extends FakeOpenAIServer {
      protected override validate(request: RecordedRequest): FakeReply | undefined {
        return fromOld(request, 308) ?? super.validate(request);
      }
    }
    const anthropic = await new MovedAnthropic({ apiKey: ANTHROPIC_KEY }).start();
    const openai = await new MovedOpenAI({ apiKey: OPENAI_KEY }).start();
    try {
      anthropic.enqueue({ type: 'reply', parts: [{ text: 'answered after the move' }] });
      openai.enqueue({ type: 'reply', parts: [{ text: 'answered after the move' }] });
      const prompt = request([message({ role: 'user', content: PROMPT })]);
      const viaAnthropic = await run(httpProvider('anthropic', ANTHROPIC_KEY, `${anthropic.url}/old`), prompt);
      assert.equal(viaAnthropic.error, undefined);
      assert.equal(textOf(viaAnthropic.events), 'answered after the move');
      const viaOpenAI = await run(httpProvider('openai-compatible', OPENAI_KEY, `${openai.url.replace(/\/v1$/, '')}/old/v1`), prompt);
      assert.equal(viaOpenAI.error, undefined);
      assert.equal(textOf(viaOpenAI.events), 'answered after the move');
      const moved = [...anthropic.requests, ...openai.requests].filter((r) => !r.path.startsWith('/old/'));
      assert.equal(moved.length, 2);
      for (const r of moved) assert.ok(r.rawBody.includes(PROMPT), 'the prompt was sent again to the same origin');
    } finally {
      await anthropic.close();
      await openai.close();
    }
  });

  it(`a server that keeps redirecting to itself is left after ${MAX_REDIRECTS} hops with a clear error`, async () => {
    const loop = await new RedirectingServer({ status: 302, samePath: (path) => `${path.split('?')[0]}?again=${Math.random()}` }).start();
    try {
      const result = await listModels({ provider: 'openai-compatible', baseUrl: `${loop.origin}/v1` });
      assert.ok(!result.ok);
      assert.match(result.message, new RegExp(`redirected more than ${MAX_REDIRECTS} times`));
      assert.equal(loop.requests.length, MAX_REDIRECTS + 1);
    } finally {
      await loop.close();
    }
  });
});
