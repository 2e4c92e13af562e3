/** A response body from an MCP server passed a byte limit; the transport reports it and the connection is closed. */
export class ResponseTooLarge extends Error {}

/**
 * `fetch` whose response bodies stop with an error past `maxBytes` of one message: a server's
 * streamed answer is read as it comes, so the limit holds however the body is sent. An event
 * stream counts per event (a long-lived stream of small events is fine).
 */
export function boundedFetch(maxBytes: number, base: typeof fetch = fetch): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return async (url, init) => {
    const response = await base(url, init);
    if (!response.body) return response;
    const eventStream = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    let sinceBoundary = 0;
    const limit = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (eventStream) {
          // An event ends at a blank line; count bytes since the last one.
          const text = new TextDecoder().decode(chunk);
          const end = Math.max(text.lastIndexOf('\n\n'), text.lastIndexOf('\r\n\r\n'));
          sinceBoundary = end === -1 ? sinceBoundary + chunk.byteLength : new TextEncoder().encode(text.slice(end)).byteLength;
        } else sinceBoundary += chunk.byteLength;
        if (sinceBoundary > maxBytes) controller.error(new ResponseTooLarge(`exceeded maximum size of ${maxBytes} bytes`));
        else controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(limit), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
