/**
 * A small MCP server for the benches, over stdio (JSON-RPC messages, one per line, as the MCP
 * stdio transport frames them), in plain JavaScript so it starts as fast as a real server program
 * (no TypeScript compiler, no SDK to load). It answers `initialize` only after MCP_INIT_DELAY_MS,
 * lists MCP_TEST_TOOLS tools (`echo`, then tool_1 …), answers `tools/call` at once (`echo` returns
 * its text), and lists no prompts and no resources.
 * Run: MCP_INIT_DELAY_MS=3000 MCP_TEST_TOOLS=20 node bench/realPath/capabilities/slowMcpServer.cjs
 */
const delayMs = Number(process.env.MCP_INIT_DELAY_MS || 0);
const toolCount = Number(process.env.MCP_TEST_TOOLS || 1);
const tools = Array.from({ length: toolCount }, (_, i) =>
  i === 0
    ? { name: 'echo', description: 'Echoes its text.', inputSchema: { type: 'object', properties: { text: { type: 'string', description: 'What to echo.' } }, required: ['text'] } }
    : { name: `tool_${i}`, description: `Bench tool number ${i}: returns its number and the note it was given.`, inputSchema: { type: 'object', properties: { note: { type: 'string', description: 'Anything.' } } } },
);

function send(message) {
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
}

function answer(request) {
  const { id, method, params } = request;
  switch (method) {
    case 'initialize':
      return setTimeout(() => send({ id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: {}, prompts: {}, resources: {} }, serverInfo: { name: 'tally-bench-server', version: '1.0.0' } } }), delayMs);
    case 'ping':
      return send({ id, result: {} });
    case 'tools/list':
      return send({ id, result: { tools } });
    case 'prompts/list':
      return send({ id, result: { prompts: [] } });
    case 'resources/list':
      return send({ id, result: { resources: [] } });
    case 'tools/call': {
      const args = params.arguments || {};
      const text = params.name === 'echo' ? String(args.text) : `${params.name}: ${args.note || ''}`;
      return send({ id, result: { content: [{ type: 'text', text }] } });
    }
    default:
      return send({ id, error: { code: -32601, message: `Method not found: ${method}` } });
  }
}

let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  let newline;
  while ((newline = buffered.indexOf('\n')) >= 0) {
    const line = buffered.slice(0, newline).trim();
    buffered = buffered.slice(newline + 1);
    if (!line) continue;
    const message = JSON.parse(line);
    // Notifications (no id) need no answer.
    if (message.id !== undefined && message.method) answer(message);
  }
});
process.stdin.on('end', () => process.exit(0));
