import { strict as assert } from 'assert';
import { SseParser, SseSyntaxError, type SseEvent } from '../../../../src/core/providers/http/sse';

function parseInPieces(pieces: Array<string | Uint8Array>): SseEvent[] {
  const parser = new SseParser();
  const events: SseEvent[] = [];
  for (const piece of pieces) events.push(...parser.push(piece));
  events.push(...parser.end());
  return events;
}

/** Every way of cutting `text` into two pieces, as bytes. */
function allSplits(text: string): Uint8Array[][] {
  const bytes = new TextEncoder().encode(text);
  const out: Uint8Array[][] = [];
  for (let i = 0; i <= bytes.length; i++) out.push([bytes.subarray(0, i), bytes.subarray(i)]);
  return out;
}

describe('SSE parser', () => {
  it('reads named events with JSON data', () => {
    const events = parseInPieces(['event: message_start\ndata: {"type":"message_start"}\n\nevent: ping\ndata: {"type": "ping"}\n\n']);
    assert.deepEqual(events, [
      { event: 'message_start', data: '{"type":"message_start"}' },
      { event: 'ping', data: '{"type": "ping"}' },
    ]);
  });

  it('gives the same events however the bytes are cut, with \\r\\n, \\n and lone \\r line endings and multibyte text', () => {
    const stream = 'event: a\r\ndata: héllo 世界 🚀\r\n\r\n: comment\rdata: line1\rdata: line2\r\rdata:no-space\n\n';
    const expected = [
      { event: 'a', data: 'héllo 世界 🚀' },
      { data: 'line1\nline2' },
      { data: 'no-space' },
    ];
    for (const pieces of allSplits(stream)) assert.deepEqual(parseInPieces(pieces), expected);
    const bytes = new TextEncoder().encode(stream);
    assert.deepEqual(parseInPieces(Array.from(bytes, (b) => Uint8Array.of(b))), expected, 'byte by byte');
  });

  it('joins several data lines with \\n and strips only one leading space', () => {
    assert.deepEqual(parseInPieces(['data:  two spaces\ndata:\ndata: end\n\n']), [{ data: ' two spaces\n\nend' }]);
  });

  it('ignores comments, unknown fields, retry, and events without data', () => {
    assert.deepEqual(parseInPieces([': keep-alive\n\nretry: 3000\nfoo: bar\n\nevent: empty\n\ndata: x\n\n']), [{ data: 'x' }]);
  });

  it('keeps the last id', () => {
    assert.deepEqual(parseInPieces(['id: 7\ndata: a\n\ndata: b\n\n']), [
      { data: 'a', id: '7' },
      { data: 'b', id: '7' },
    ]);
  });

  it('delivers a last event missing only its blank line, and drops a cut-off last line', () => {
    assert.deepEqual(parseInPieces(['data: [DONE]\n']), [{ data: '[DONE]' }]);
    assert.deepEqual(parseInPieces(['data: {"a":1}\n\ndata: {"trunc']), [{ data: '{"a":1}' }]);
  });

  it('does not treat \\r\\n split across chunks as two line breaks', () => {
    assert.deepEqual(parseInPieces(['data: a\r', '\ndata: b\r\n\r\n']), [{ data: 'a\nb' }]);
  });

  it('rejects a line that never ends instead of buffering without limit', () => {
    const parser = new SseParser();
    const piece = 'x'.repeat(1024 * 1024);
    assert.throws(() => {
      for (let i = 0; i < 20; i++) parser.push(piece);
    }, SseSyntaxError);
  });
});
