import * as assert from 'assert';
import * as path from 'path';
import type { McpConnection } from '../../../../src/core/mcp/connection';
import type { McpServerConfig, McpStdioServer } from '../../../../src/core/mcp/serverConfig';
import { DEFAULT_MCP_LIMITS, sdkConnector, type McpLimits } from '../../../../src/node/mcp/sdkConnection';
import { startHttpServer } from '../../../fakes/mcp/testServer';

const ROOT = path.resolve(__dirname, '../../../..');

/** The SDK-built test server as a real program over stdio. */
function stdioServer(name = 'test', env: Record<string, string> = {}): McpStdioServer {
  return { name, transport: 'stdio', command: process.execPath, args: ['-r', path.join(ROOT, 'test/register.cjs'), path.join(ROOT, 'test/fakes/mcp/testServer.ts')], env, origin: 'user' };
}

const LIMITS: McpLimits = { ...DEFAULT_MCP_LIMITS, requestTimeoutMs: 1_500, maxMessageBytes: 200_000 };

describe('MCP client conformance (the official SDK against a real server)', function () {
  this.timeout(30_000);
  const open: McpConnection[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.close()));
  });
  async function connect(server: McpServerConfig, limits = LIMITS): Promise<McpConnection> {
    const connection = await sdkConnector(limits)(server);
    open.push(connection);
    return connection;
  }

  for (const transport of ['stdio', 'http'] as const) {
    describe(`over ${transport}`, () => {
      let http: Awaited<ReturnType<typeof startHttpServer>> | undefined;
      before(async () => {
        if (transport === 'http') http = await startHttpServer();
      });
      after(async () => http?.close());
      const server = (): McpServerConfig => (transport === 'stdio' ? stdioServer() : { name: 'test', transport: 'http', url: http!.url, headers: {}, origin: 'user' });

      it('lists the tools and calls them; an error result is marked as one', async () => {
        const connection = await connect(server());
        const tools = await connection.listTools();
        assert.deepStrictEqual(tools.map((t) => t.name).slice(0, 3), ['echo', 'add', 'fail']);
        assert.deepStrictEqual(tools[1].inputSchema.required, ['a', 'b']);
        assert.deepStrictEqual(await connection.callTool('echo', { text: 'hello' }), { text: 'hello', isError: false });
        assert.deepStrictEqual(await connection.callTool('add', { a: 2, b: 40 }), { text: '42', isError: false });
        assert.deepStrictEqual(await connection.callTool('fail', {}), { text: 'the thing failed', isError: true });
      });

      it('names what it leaves out of a result (an image) and keeps an embedded text resource', async () => {
        const connection = await connect(server());
        const result = await connection.callTool('mixed', {});
        assert.strictEqual(result.text, 'a picture:\n[image (image/png, 16 bytes) left out]\nembedded notes');
      });

      it('reads a resource and gets a prompt with its arguments', async () => {
        const connection = await connect(server());
        assert.deepStrictEqual(await connection.listResources(), [{ uri: 'test://readme', name: 'readme', description: 'The project notes.', mimeType: 'text/markdown', size: undefined }]);
        assert.deepStrictEqual(await connection.readResource('test://readme'), { uri: 'test://readme', mimeType: 'text/markdown', text: '# Notes\nThe build runs with npm test.' });
        assert.deepStrictEqual(await connection.listPrompts(), [{ name: 'review', description: 'Review a file.', arguments: [{ name: 'file', description: 'The file to review.', required: true }] }]);
        assert.deepStrictEqual(await connection.getPrompt('review', { file: 'src/a.ts' }), { description: 'Review a file.', messages: [{ role: 'user', text: 'Please review src/a.ts for bugs.' }] });
      });

      it('gives up on a call the server never answers, with a message naming the server and the limit', async () => {
        const connection = await connect(server());
        await assert.rejects(connection.callTool('hang', {}), /The MCP server "test" did not answer the call of hang within 1\.5 s\./);
        // The server still answers what comes next.
        assert.strictEqual((await connection.callTool('echo', { text: 'still here' })).text, 'still here');
      });

      it('refuses a result larger than the limit without reading it', async () => {
        const connection = await connect(server());
        assert.strictEqual((await connection.callTool('big', { bytes: 1000 })).text.length, 1000);
        await assert.rejects(connection.callTool('big', { bytes: 500_000 }), /The MCP server "test" sent a result larger than 0 MB for the call of big; it was not read\./);
      });

      it('stops at once when the call is cancelled', async () => {
        const connection = await connect(server());
        const controller = new AbortController();
        const call = connection.callTool('hang', {}, controller.signal);
        controller.abort();
        await assert.rejects(call, /the call of hang was cancelled\./);
      });
    });
  }

  it('says the program stopped when a stdio server exits mid-call, with the end of its output', async () => {
    const connection = await connect(stdioServer());
    const closed = new Promise<string>((resolve) => connection.onClosed(resolve));
    await assert.rejects(connection.callTool('crash', {}), (error: Error) => {
      assert.match(error.message, /^The MCP server "test" stopped during the call of crash: the program exited\. Its last output:\ntest server: crashing on purpose$/);
      return true;
    });
    assert.match(await closed, /the program exited/);
    await assert.rejects(connection.callTool('echo', { text: 'x' }), /The MCP server "test" is not running: the program exited/);
  });

  it('says when a stdio program is not found', async () => {
    await assert.rejects(connect({ ...stdioServer('missing'), command: path.join(ROOT, 'no-such-program'), args: [] }), /The MCP server "missing" failed to start: the program was not found/);
  });

  it('gives up on a program that starts but never answers, within the start limit', async () => {
    const silent: McpServerConfig = { ...stdioServer('silent'), args: ['-e', 'setInterval(() => {}, 1000)'] };
    await assert.rejects(connect(silent, { ...LIMITS, startTimeoutMs: 1_000 }), /The MCP server "silent" did not answer within 1 s of starting/);
  });

  it('says when a program exits before answering, with its output', async () => {
    const exits: McpServerConfig = { ...stdioServer('exits'), args: ['-e', 'console.error("bad config: no token"); process.exit(1)'] };
    await assert.rejects(connect(exits), /The MCP server "exits" failed to start: .*Its last output:\nbad config: no token/s);
  });

  it('says when an HTTP server is not there', async () => {
    const http = await startHttpServer();
    const url = http.url;
    await http.close();
    await assert.rejects(connect({ name: 'gone', transport: 'http', url, headers: {}, origin: 'user' }), /The MCP server "gone" failed to start: /);
  });
});
