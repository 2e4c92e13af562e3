import { strict as assert } from 'assert';
import { createAnthropicProvider } from '../../../../src/core/providers/anthropic/anthropic';
import { redactSecrets } from '../../../../src/core/providers/errors';
import { createOpenAIProvider } from '../../../../src/core/providers/openai/openai';
import type { ChatProvider } from '../../../../src/core/providers/types';
import { FakeAnthropicServer } from '../../../fakes/anthropicServer';
import { FakeOpenAIServer } from '../../../fakes/openaiServer';
import type { ScriptedServer } from '../../../fakes/scriptedServer';
import { request, run } from './harness';

/** Every 8-character piece of the key: none may be left in what the user sees. */
function assertNoKeyPiece(text: string, key: string): void {
  for (let i = 0; i + 8 <= key.length; i++) {
    const piece = key.slice(i, i + 8);
    assert.ok(!text.includes(piece), `"${piece}" of the key is in: …${text.slice(Math.max(0, text.indexOf(piece) - 40), text.indexOf(piece) + 40)}…`);
  }
}

interface Setup {
  name: string;
  key: string;
  start(key: string): Promise<ScriptedServer>;
  provider(server: ScriptedServer, key: string): ChatProvider;
}

const SETUPS: Setup[] = [
  {
    name: 'Anthropic',
    key: 'sk-ant-api03-Zq7Vx2Lm9Pw4Rt8Yk3Hn6Bc1Df5Gj0Ks',
    start: (key) => new FakeAnthropicServer({ apiKey: key }).start(),
    provider: (server, key) => createAnthropicProvider({ apiKey: key, baseUrl: server.url, retry: { maxAttempts: 1 } }),
  },
  {
    name: 'OpenAI-compatible with a key that is not sk-shaped',
    key: 'corp+Key/Zq7Vx2Lm9Pw4Rt8Yk3Hn6Bc1Df5==',
    start: (key) => new FakeOpenAIServer({ apiKey: key }).start(),
    provider: (server, key) => createOpenAIProvider({ apiKey: key, baseUrl: server.url, retry: { maxAttempts: 1 } }),
  },
];

describe('API keys echoed by a server never reach an error message', () => {
  for (const setup of SETUPS) {
    const echoes: Array<[string, (key: string) => string]> = [
      ['cut one character before its end by the length limit', (key) => `${'x'.repeat(1000 - key.length + 1)}${key} and more text after it`],
      ['straddling the length limit in the middle', (key) => `${'y'.repeat(995)}${key}`],
      ['glued to a word', (key) => `invalid token${key} given`],
      ['URL-encoded in a query string', (key) => `GET /v1?api_key=${encodeURIComponent(key)} was refused`],
      ['as a JSON field', (key) => `header was {"x-api-key":"${key}"}`],
    ];
    for (const [how, body] of echoes) {
      it(`${setup.name}: a long error body with the key ${how}, and the key in headers`, async () => {
        const server = await setup.start(setup.key);
        try {
          server.enqueue({
            type: 'error',
            status: 401,
            body: { error: { type: 'authentication_error', message: body(setup.key) } },
            headers: { 'x-echoed-key': setup.key, 'www-authenticate': `Bearer ${setup.key}` },
          });
          const { error } = await run(setup.provider(server, setup.key), request());
          assert.ok(error, 'the request fails');
          assert.equal(error.kind, 'auth');
          assertNoKeyPiece(`${error.message}\n${error.stack}\n${JSON.stringify(error)}`, setup.key);
          assert.match(error.message, /\[reda/);
        } finally {
          await server.close();
        }
      });
    }
  }

  it('redacts key-shaped values the request did not use', () => {
    const text = redactSecrets('a tokensk-proj-AAAABBBBCCCC b key:"sk-ant-api03-DDDDEEEEFFFF" c Bearer GGGGHHHHIIII d x-api-key: JJJJKKKKLLLL');
    for (const secret of ['AAAABBBB', 'DDDDEEEE', 'GGGGHHHH', 'JJJJKKKK']) assert.ok(!text.includes(secret), text);
  });
});
