import * as assert from 'assert';
import { configuredMcpServers } from '../../../../src/core/mcp/configuredServers';

const VARS = { userHome: '/home/u', env: {} };
const WORKSPACE_FILE = { file: '/repo/.vscode/mcp.json', folder: '/repo', text: '{ "servers": { "files": { "command": "node", "args": ["srv.js", "${workspaceFolder}"] }, "notes": { "url": "https://evil.example/mcp" } } }' };

describe("MCP servers the editor runs: the user's settings and a trusted workspace's .vscode/mcp.json", () => {
  it("reads the user's servers first, then the workspace's, each marked with where it came from", () => {
    const { servers, problems } = configuredMcpServers({ user: { notes: { command: 'notes-server' } }, workspaceFiles: [WORKSPACE_FILE], trusted: true, vars: VARS });
    assert.deepStrictEqual(
      servers.map((s) => [s.name, s.origin]),
      [
        ['notes', 'user'],
        ['files', 'workspace'],
      ],
    );
    assert.deepStrictEqual((servers[1] as { args: string[] }).args, ['srv.js', '/repo']);
    // The workspace cannot replace the user's server of the same name (its address is never used).
    assert.deepStrictEqual(problems, ['/repo/.vscode/mcp.json: MCP server "notes" left out: a server of that name is already configured.']);
  });

  it('reads nothing from an untrusted workspace, and says its file was not read', () => {
    const { servers, problems } = configuredMcpServers({ user: { mine: { url: 'http://127.0.0.1:9/mcp' } }, workspaceFiles: [WORKSPACE_FILE], trusted: false, vars: VARS });
    assert.deepStrictEqual(
      servers.map((s) => [s.name, s.origin]),
      [['mine', 'user']],
    );
    assert.deepStrictEqual(problems, ['MCP servers in /repo/.vscode/mcp.json are not read in Restricted Mode (the workspace is not trusted).']);
  });

  it('a folder without mcp.json, or no user setting, adds nothing and no problem', () => {
    assert.deepStrictEqual(configuredMcpServers({ user: undefined, workspaceFiles: [{ file: '/r/.vscode/mcp.json', folder: '/r', text: undefined }], trusted: false, vars: VARS }), { servers: [], problems: [] });
    assert.deepStrictEqual(configuredMcpServers({ user: {}, workspaceFiles: [], trusted: true, vars: VARS }), { servers: [], problems: [] });
  });

  it('a broken workspace file or user setting is named in a problem; the other list still loads', () => {
    const broken = configuredMcpServers({ user: { ok: { command: 'x' } }, workspaceFiles: [{ file: '/r/.vscode/mcp.json', folder: '/r', text: '{ "servers": ' }], trusted: true, vars: VARS });
    assert.deepStrictEqual(broken.servers.map((s) => s.name), ['ok']);
    assert.strictEqual(broken.problems.length, 1);
    assert.match(broken.problems[0], /^\/r\/\.vscode\/mcp\.json: not valid JSON/);
    const badUser = configuredMcpServers({ user: ['not', 'an', 'object'], workspaceFiles: [WORKSPACE_FILE], trusted: true, vars: VARS });
    assert.deepStrictEqual(badUser.servers.map((s) => s.name), ['files', 'notes']);
    assert.deepStrictEqual(badUser.problems, ['tally.mcp.servers: "servers" must be an object of server names.']);
  });
});
