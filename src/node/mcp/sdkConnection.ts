import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { McpConnection, McpConnector, McpPromptListing, McpResourceInfo, McpResourceText, McpToolInfo, McpToolResult } from '../../core/mcp/connection';
import type { McpPromptText } from '../../core/mcp/promptSource';
import type { McpServerConfig } from '../../core/mcp/serverConfig';
import { boundedFetch, ResponseTooLarge } from './boundedFetch';
import { contentText, promptMessageText } from './contentText';

export interface McpLimits {
  /** How long a server may take to start and answer `initialize`. */
  startTimeoutMs: number;
  /** How long one request (a tool call, a listing) may take. */
  requestTimeoutMs: number;
  /** The largest message a server may send (a result past it is refused, not read). */
  maxMessageBytes: number;
}

export const DEFAULT_MCP_LIMITS: McpLimits = { startTimeoutMs: 30_000, requestTimeoutMs: 120_000, maxMessageBytes: 8 * 1024 * 1024 };

const STDERR_TAIL = 2_000;

/** Connects MCP servers with the official SDK's client: stdio programs and streamable HTTP. */
export function sdkConnector(limits: McpLimits = DEFAULT_MCP_LIMITS, clientVersion = '0.0.0'): McpConnector {
  return (server, signal) => connect(server, limits, clientVersion, signal);
}

async function connect(server: McpServerConfig, limits: McpLimits, version: string, signal?: AbortSignal): Promise<McpConnection> {
  const state: ConnectionState = { stderr: '', oversize: false, closed: undefined, listeners: [] };
  const mb = (limits.maxMessageBytes / 1024 / 1024).toFixed(0);
  let transport: Transport;
  if (server.transport === 'stdio') {
    const stdio = new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: { ...getDefaultEnvironment(), ...server.env },
      cwd: server.cwd,
      stderr: 'pipe',
      maxBufferSize: limits.maxMessageBytes,
    });
    stdio.stderr?.on('data', (chunk: Buffer) => {
      state.stderr = (state.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    transport = stdio;
  } else {
    transport = new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: server.headers },
      fetch: boundedFetch(limits.maxMessageBytes),
    });
  }
  // The SDK validates output against a tool's schema only when given a validator; a result is
  // untrusted text either way, so no validator (and no JSON-schema compiler) is loaded.
  const client = new Client({ name: 'tally', version }, { capabilities: {}, jsonSchemaValidator: ACCEPT_ALL });
  client.onerror = (error) => {
    if (/exceeded maximum size/.test(error.message) || error instanceof ResponseTooLarge) {
      state.oversize = true;
      void client.close();
    }
  };
  client.onclose = () => {
    if (state.closed !== undefined) return;
    state.closed = state.oversize ? `it sent a message larger than ${mb} MB` : exitReason(server, state.stderr);
    for (const listener of state.listeners) listener(state.closed);
  };
  const timeout = AbortSignal.timeout(limits.startTimeoutMs);
  const started = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    await raceAbort(client.connect(transport, { signal: started, timeout: limits.startTimeoutMs }), started);
  } catch (error) {
    await client.close().catch(() => undefined);
    if (signal?.aborted) throw new Error(`Starting the MCP server "${server.name}" was cancelled.`);
    if (timeout.aborted) throw new Error(`The MCP server "${server.name}" did not answer within ${limits.startTimeoutMs / 1000} s of starting${stderrNote(state.stderr)}`);
    throw new Error(`The MCP server "${server.name}" failed to start: ${describe(error)}${stderrNote(state.stderr)}`);
  }

  const request = async <T>(what: string, run: (options: { signal?: AbortSignal; timeout: number }) => Promise<T>, signal?: AbortSignal): Promise<T> => {
    if (state.closed !== undefined) throw new Error(`The MCP server "${server.name}" is not running: ${state.closed}`);
    try {
      return await run({ signal, timeout: limits.requestTimeoutMs });
    } catch (error) {
      if (signal?.aborted) throw new Error(`${what} was cancelled.`);
      if (state.oversize || /exceeded maximum size/.test(describe(error))) throw new Error(`The MCP server "${server.name}" sent a result larger than ${mb} MB for ${what}; it was not read.`);
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) throw new Error(`The MCP server "${server.name}" did not answer ${what} within ${limits.requestTimeoutMs / 1000} s.`);
      if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) throw new Error(`The MCP server "${server.name}" stopped during ${what}: ${state.closed ?? 'the connection closed'}`);
      throw new Error(`The MCP server "${server.name}" refused ${what}: ${describe(error)}`);
    }
  };

  return {
    server,
    async listTools(signal) {
      const tools: McpToolInfo[] = [];
      let cursor: string | undefined;
      do {
        const page = await request('the tool list', (o) => client.listTools(cursor ? { cursor } : undefined, o), signal);
        for (const t of page.tools) tools.push({ name: t.name, description: t.description ?? t.title, inputSchema: t.inputSchema as Record<string, unknown> });
        cursor = page.nextCursor;
      } while (cursor);
      return tools;
    },
    async callTool(name, args, signal): Promise<McpToolResult> {
      const result = await request(`the call of ${name}`, (o) => client.callTool({ name, arguments: args }, undefined, o), signal);
      return { text: contentText(result), isError: result.isError === true };
    },
    async listResources(signal) {
      if (!client.getServerCapabilities()?.resources) return [];
      const resources: McpResourceInfo[] = [];
      let cursor: string | undefined;
      do {
        const page = await request('the resource list', (o) => client.listResources(cursor ? { cursor } : undefined, o), signal);
        for (const r of page.resources) resources.push({ uri: r.uri, name: r.title ?? r.name, description: r.description, mimeType: r.mimeType, size: r.size });
        cursor = page.nextCursor;
      } while (cursor);
      return resources;
    },
    async readResource(uri, signal): Promise<McpResourceText> {
      const result = await request(`reading ${uri}`, (o) => client.readResource({ uri }, o), signal);
      const parts = result.contents.map((c) => ('text' in c && typeof c.text === 'string' ? c.text : `[${c.mimeType ?? 'binary'} content of ${c.uri} left out: ${Math.round(((c as { blob?: string }).blob?.length ?? 0) * 0.75)} bytes]`));
      return { uri, mimeType: result.contents[0]?.mimeType, text: parts.join('\n') };
    },
    async listPrompts(signal): Promise<McpPromptListing[]> {
      if (!client.getServerCapabilities()?.prompts) return [];
      const prompts: McpPromptListing[] = [];
      let cursor: string | undefined;
      do {
        const page = await request('the prompt list', (o) => client.listPrompts(cursor ? { cursor } : undefined, o), signal);
        for (const p of page.prompts) prompts.push({ name: p.name, description: p.description ?? p.title, arguments: (p.arguments ?? []).map((a) => ({ name: a.name, description: a.description, required: a.required === true })) });
        cursor = page.nextCursor;
      } while (cursor);
      return prompts;
    },
    async getPrompt(name, args, signal): Promise<McpPromptText> {
      const result = await request(`the prompt ${name}`, (o) => client.getPrompt({ name, arguments: args }, o), signal);
      return { description: result.description, messages: result.messages.map((m) => ({ role: m.role, text: promptMessageText(m.content) })) };
    },
    onClosed(listener) {
      if (state.closed !== undefined) listener(state.closed);
      else state.listeners.push(listener);
    },
    async close() {
      if (state.closed === undefined) state.closed = 'it was stopped';
      await client.close().catch(() => undefined);
    },
  };
}

interface ConnectionState {
  stderr: string;
  oversize: boolean;
  closed: string | undefined;
  listeners: Array<(reason: string) => void>;
}

const ACCEPT_ALL = { getValidator: () => (input: unknown) => ({ valid: true as const, data: input as never, errorMessage: undefined }) };

function exitReason(server: McpServerConfig, stderr: string): string {
  return server.transport === 'stdio' ? `the program exited${stderrNote(stderr)}` : 'the connection closed';
}

function stderrNote(stderr: string): string {
  const tail = stderr.trim().split('\n').slice(-5).join('\n');
  return tail ? `. Its last output:\n${tail}` : '.';
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'the program was not found';
    if (code === 'EACCES') return 'the program may not be run (permission denied)';
    return error.message;
  }
  return String(error);
}

/** Rejects as soon as the signal aborts (the SDK's connect does not always watch it while a program starts). */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
