/**
 * A request body goes to fetch as the bytes Tally built, not a copy: fetch copies a byte array body
 * when it takes it and again for a request that may redirect, so the body is handed over as a
 * one-chunk stream of those very bytes. The server still gets a plain request: Content-Length, no
 * chunked encoding, the same bytes, and a same-origin 307 sends them again.
 */
import { strict as assert } from 'assert';
import { createServer, type IncomingHttpHeaders, type Server } from 'http';
import type { AddressInfo } from 'net';
import { ByteChunks } from '../../../../src/core/providers/http/bodyBytes';
import { fetchSameOrigin, streamedBody } from '../../../../src/core/providers/http/sameOriginFetch';

interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

async function startServer(seen: Seen[]): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      if (req.url === '/old') {
        res.writeHead(307, { location: '/new' });
        res.end();
      } else res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function chunksOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) out.push(r.value);
  return out;
}

describe('request bodies handed to fetch', () => {
  it('a byte body becomes a stream whose one chunk is the same bytes, with their length in Content-Length', async () => {
    const bytes = new TextEncoder().encode('{"messages":[{"role":"user","content":"héllo"}]}');
    const init = streamedBody({ method: 'POST', headers: { 'content-type': 'application/json' }, body: bytes });
    assert.ok(init.body instanceof ReadableStream);
    const chunks = await chunksOf(init.body as ReadableStream<Uint8Array>);
    assert.equal(chunks.length, 1);
    assert.equal(chunks[0], bytes, 'the chunk is the body itself, not a copy');
    const headers = new Headers(init.headers);
    assert.equal(headers.get('content-length'), String(bytes.byteLength));
    assert.equal(headers.get('content-type'), 'application/json');
  });

  it('a body in chunks goes as those chunks in order, their total length in Content-Length', async () => {
    const body = new ByteChunks();
    for (const part of ['{"messages":[', '{"role":"user","content":"é"}', ']}']) body.text(part);
    const init = streamedBody({ method: 'POST', body });
    const chunks = await chunksOf(init.body as ReadableStream<Uint8Array>);
    assert.deepEqual(chunks, body.parts);
    chunks.forEach((chunk, i) => assert.equal(chunk, body.parts[i]));
    assert.equal(new Headers(init.headers).get('content-length'), String(body.byteLength));
  });

  it('a text body or none is left as it is', () => {
    const text = { method: 'POST', body: '{}' };
    assert.equal(streamedBody(text), text);
    const none = { method: 'GET' };
    assert.equal(streamedBody(none), none);
  });

  it('the server gets the same bytes with Content-Length and no chunked encoding, again after a same-origin 307', async () => {
    const seen: Seen[] = [];
    const { server, url } = await startServer(seen);
    try {
      const bytes = new TextEncoder().encode(JSON.stringify({ model: 'm', messages: Array.from({ length: 2000 }, (_, i) => ({ role: 'user', content: `message ${i} ✓` })) }));
      const streamsSent: unknown[] = [];
      const response = await fetchSameOrigin(
        (input, init) => {
          streamsSent.push(init.body);
          return fetch(input, init);
        },
        `${url}/old`,
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: bytes },
      );
      assert.equal(await response.text(), 'ok');
      assert.deepEqual(seen.map((s) => s.path), ['/old', '/new']);
      for (const request of seen) {
        assert.equal(request.headers['content-length'], String(bytes.byteLength));
        assert.equal(request.headers['transfer-encoding'], undefined);
        assert.ok(request.body.equals(Buffer.from(bytes)), `${request.path}: the bytes sent differ`);
      }
      assert.equal(streamsSent.length, 2);
      assert.ok(streamsSent.every((s) => s instanceof ReadableStream));
      assert.notEqual(streamsSent[0], streamsSent[1], 'each send has its own stream');
    } finally {
      server.close();
    }
  });
});
