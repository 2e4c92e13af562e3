import { strict as assert } from 'assert';
import { createServer, type Server } from 'http';
import type { AddressInfo } from 'net';
import { answeringLocalServer } from '../../../../src/core/providers/models/localServers';

/** A server on 127.0.0.1 that answers GET /v1/models with an empty list, as an OpenAI-compatible server does. */
async function listening(): Promise<{ server: Server; baseUrl: string }> {
  const server = createServer((req, res) => {
    res.writeHead(req.url === '/v1/models' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data: [] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}

/** A port nothing listens on: one that was free a moment ago. */
async function closedPort(): Promise<string> {
  const { server, baseUrl } = await listening();
  await new Promise((resolve) => server.close(resolve));
  return baseUrl;
}

describe("Select Model's pre-filled address for a local server", () => {
  it('offers the server that answers (the fake model) rather than Ollama, which is not running', async () => {
    const fake = await listening();
    try {
      const ollama = await closedPort();
      assert.equal(await answeringLocalServer({ servers: [{ name: 'Ollama', baseUrl: ollama }, { name: 'fake model', baseUrl: fake.baseUrl }] }), fake.baseUrl);
    } finally {
      fake.server.close();
    }
  });

  it("keeps Ollama first when both answer, and Ollama's address when nothing answers", async () => {
    const [a, b] = [await listening(), await listening()];
    try {
      assert.equal(await answeringLocalServer({ servers: [{ name: 'Ollama', baseUrl: a.baseUrl }, { name: 'fake', baseUrl: b.baseUrl }] }), a.baseUrl);
      const [x, y] = [await closedPort(), await closedPort()];
      assert.equal(await answeringLocalServer({ servers: [{ name: 'Ollama', baseUrl: x }, { name: 'fake', baseUrl: y }] }), x);
    } finally {
      a.server.close();
      b.server.close();
    }
  });
});
