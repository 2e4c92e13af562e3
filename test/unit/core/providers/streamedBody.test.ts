/**
 * A request body goes to fetch as the bytes Tally built, not a copy: fetch copies a byte array body
 * when it takes it and again for a request that may redirect, so the body is handed over as a
 * stream of those very bytes, in pieces of about 64 KB (a long session's body is two parts a message,
 * and a stream of 100,000 chunks takes Node seconds to write). The server still gets a plain request: Content-Length, no
 * chunked encoding, the same bytes, and a same-origin 307 sends them again.
 */
import { strict as assert } from 'assert';
import { createServer, type IncomingHttpHeaders, type Server } from 'http';
import type { AddressInfo } from 'net';
import { ByteChunks, SEND_BLOCK_BYTES, sendBlocks } from '../../../../src/core/providers/http/bodyBytes';
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

  it('a body in small chunks goes as one piece of those bytes in order, their total length in Content-Length', async () => {
    const body = new ByteChunks();
    for (const part of ['{"messages":[', '{"role":"user","content":"é"}', ']}']) body.text(part);
    const init = streamedBody({ method: 'POST', body });
    const chunks = await chunksOf(init.body as ReadableStream<Uint8Array>);
    assert.equal(chunks.length, 1);
    assert.deepEqual(chunks[0], body.join());
    assert.equal(new Headers(init.headers).get('content-length'), String(body.byteLength));
  });

  it('a long session\'s body of 100,000 message parts reaches fetch in pieces of at most 64 KB, a larger part as itself', async () => {
    const body = new ByteChunks();
    body.text('{"messages":[');
    const kept = new Uint8Array(3 * SEND_BLOCK_BYTES + 5).fill(0x20);
    body.push(kept);
    for (let i = 0; i < 50_000; i++) {
      body.text(',');
      body.text(JSON.stringify({ role: i % 2 ? 'assistant' : 'user', content: `message ${i} ✓ ${'x'.repeat(i % 300)}` }));
    }
    body.text(']}');
    const chunks = await chunksOf(streamedBody({ method: 'POST', body }).body as ReadableStream<Uint8Array>);
    assert.ok(chunks.includes(kept), 'the part larger than a piece goes as it is, not copied');
    for (const chunk of chunks) if (chunk !== kept) assert.ok(chunk.length <= SEND_BLOCK_BYTES, `a piece of ${chunk.length} bytes`);
    // Every piece but those beside the large part is filled to within one message of 64 KB.
    assert.ok(chunks.length <= Math.ceil(body.byteLength / (SEND_BLOCK_BYTES - 400)) + 2, `${chunks.length} pieces for ${body.byteLength} bytes`);
    assert.deepEqual(Buffer.concat(chunks), Buffer.from(body.join()));
  });

  it('pieces never hold an empty part, and parts of exactly 64 KB go as they are', () => {
    const big = new Uint8Array(SEND_BLOCK_BYTES).fill(1);
    const small = [new Uint8Array([1]), new Uint8Array(0), new Uint8Array([2, 3])];
    const pieces = [...sendBlocks([new Uint8Array(0), ...small, big, new Uint8Array(0)])];
    assert.equal(pieces.length, 2);
    assert.deepEqual([...pieces[0]], [1, 2, 3]);
    assert.equal(pieces[1], big);
    assert.deepEqual([...sendBlocks([])], []);
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
