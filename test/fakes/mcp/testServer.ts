/**
 * A real MCP server built on the official SDK's server side, for the client's conformance tests.
 * Run as a program: `node -r ./test/register.cjs test/fakes/mcp/testServer.ts` speaks stdio;
 * `startHttpServer()` serves streamable HTTP on a local port. Its tools: echo, add, fail (an error
 * result), crash (the process exits mid-call), hang (never answers), big (a result of N bytes),
 * mixed (text, an image and an embedded resource); one resource and one prompt.
 */
import { randomUUID } from 'crypto';
import { createServer, type Server as HttpServer } from 'http';
import type { AddressInfo } from 'net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, GetPromptRequestSchema, ListPromptsRequestSchema, ListResourcesRequestSchema, ListToolsRequestSchema, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const TOOLS: Array<{ name: string; description: string; inputSchema: Record<string, unknown> }> = [
  { name: 'echo', description: 'Echoes its text.', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  { name: 'add', description: 'Adds two numbers.', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } },
  { name: 'fail', description: 'Always reports an error.', inputSchema: { type: 'object', properties: {} } },
  { name: 'crash', description: 'Exits the server mid-call.', inputSchema: { type: 'object', properties: {} } },
  { name: 'hang', description: 'Never answers.', inputSchema: { type: 'object', properties: {} } },
  { name: 'big', description: 'Returns a text of the given size.', inputSchema: { type: 'object', properties: { bytes: { type: 'number' } }, required: ['bytes'] } },
  { name: 'mixed', description: 'Returns text, an image and an embedded resource.', inputSchema: { type: 'object', properties: {} } },
];

/** Extra tools named tool_0 … tool_N-1 (MCP_TEST_TOOLS), for listing many. */
function extraTools(): typeof TOOLS {
  const count = Number(process.env.MCP_TEST_TOOLS ?? 0);
  return Array.from({ length: count }, (_, i) => ({ name: `tool_${i}`, description: `Test tool number ${i}: does nothing but return its number.`, inputSchema: { type: 'object', properties: { note: { type: 'string', description: 'Anything.' } } } }));
}

export function makeServer(): Server {
  const server = new Server({ name: 'tally-test-server', version: '1.0.0' }, { capabilities: { tools: {}, resources: {}, prompts: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...TOOLS, ...extraTools()] }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    switch (request.params.name) {
      case 'echo':
        return { content: [{ type: 'text', text: String(args.text) }] };
      case 'add':
        return { content: [{ type: 'text', text: String(Number(args.a) + Number(args.b)) }] };
      case 'fail':
        return { content: [{ type: 'text', text: 'the thing failed' }], isError: true };
      case 'crash':
        process.stderr.write('test server: crashing on purpose\n');
        process.exit(3);
        break;
      case 'hang':
        return new Promise(() => undefined);
      case 'big':
        return { content: [{ type: 'text', text: 'x'.repeat(Number(args.bytes)) }] };
      case 'mixed':
        return {
          content: [
            { type: 'text', text: 'a picture:' },
            { type: 'image', data: Buffer.from('not really a png').toString('base64'), mimeType: 'image/png' },
            { type: 'resource', resource: { uri: 'test://notes', mimeType: 'text/plain', text: 'embedded notes' } },
          ],
        };
    }
    if (/^tool_\d+$/.test(request.params.name)) return { content: [{ type: 'text', text: request.params.name }] };
    throw new Error(`no tool ${request.params.name}`);
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [{ uri: 'test://readme', name: 'readme', description: 'The project notes.', mimeType: 'text/markdown' }] }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    if (request.params.uri !== 'test://readme') throw new Error(`no resource ${request.params.uri}`);
    return { contents: [{ uri: 'test://readme', mimeType: 'text/markdown', text: '# Notes\nThe build runs with npm test.' }] };
  });
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [{ name: 'review', description: 'Review a file.', arguments: [{ name: 'file', description: 'The file to review.', required: true }] }] }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => ({
    description: 'Review a file.',
    messages: [{ role: 'user', content: { type: 'text', text: `Please review ${request.params.arguments?.file ?? '(no file)'} for bugs.` } }],
  }));
  return server;
}

/** Serves streamable HTTP at http://127.0.0.1:<port>/mcp, one SDK transport per session. */
export async function startHttpServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http: HttpServer = createServer(async (req, res) => {
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => void sessions.set(sid, transport!) });
      await makeServer().connect(transport);
    }
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

if (require.main === module) void makeServer().connect(new StdioServerTransport());
