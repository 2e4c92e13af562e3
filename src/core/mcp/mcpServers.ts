import type { Tool } from '../tools/types';
import type { McpConnection, McpConnector, McpResourceInfo, McpResourceText, McpToolInfo } from './connection';
import { mcpTools } from './mcpTools';
import { mcpPromptCommand, type McpPromptInfo, type McpPromptSource, type McpPromptText } from './promptSource';
import type { McpServerConfig } from './serverConfig';

/** Whether a server may start now: `true`, or why not (Restricted Mode, the user declined its command line). */
export type McpStartGate = (server: McpServerConfig, signal?: AbortSignal) => Promise<true | string>;

export type McpServerState = 'not started' | 'starting' | 'running' | 'failed' | 'not allowed';

export interface McpServerStatus {
  name: string;
  transport: McpServerConfig['transport'];
  state: McpServerState;
  /** Why it failed or may not start. */
  message?: string;
  toolCount: number;
}

export interface McpResourceListing extends McpResourceInfo {
  server: string;
}

interface Running {
  config: McpServerConfig;
  state: McpServerState;
  message?: string;
  connection?: Promise<McpConnection>;
  tools: McpToolInfo[];
  /** Its prompts and resources, listed in the background once it runs (the `/` and `#` lists read them without waiting). */
  prompts?: McpPromptInfo[];
  resources?: McpResourceListing[];
}

/**
 * The MCP servers Tally itself runs: started on first use (never while the extension activates),
 * each one's tools kept as listed so every tool source can read them at once, restarted on next use
 * after it stops. Nothing here waits on a server without its time limit: the connector bounds
 * starting and each request, and a server that fails is reported by name.
 */
export class McpServers implements McpPromptSource {
  private readonly running = new Map<string, Running>();
  private readonly listeners = new Set<() => void>();
  private toolCache: { key: string; tools: Tool[] } | undefined;

  constructor(
    private readonly configured: () => readonly McpServerConfig[],
    private readonly connector: McpConnector,
    private readonly gate: McpStartGate,
  ) {}

  /** Told whenever a server's state or tools change (the views list them). */
  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  status(): McpServerStatus[] {
    return this.configured().map((config) => {
      const run = this.current(config);
      return { name: config.name, transport: config.transport, state: run?.state ?? 'not started', message: run?.message, toolCount: run?.tools.length ?? 0 };
    });
  }

  /** Every listed tool of every server that has started (one that stopped keeps its tools: a call starts it again), as registry tools, the same objects until a list changes. */
  tools(): Tool[] {
    const servers = this.configured().map((c) => this.current(c)).filter((r): r is Running => r !== undefined && r.state !== 'not allowed' && r.tools.length > 0);
    const key = servers.map((r) => `${r.config.name}:${r.tools.map((t) => t.name).join(',')}`).join('|');
    if (this.toolCache?.key !== key) this.toolCache = { key, tools: mcpTools(servers.map((r) => ({ server: r.config.name, tools: r.tools })), (server) => this.connection(server)) };
    return this.toolCache.tools;
  }

  /** Starts every configured server not yet started and lists its tools; resolves when each has started or failed (never rejects). */
  async startAll(signal?: AbortSignal): Promise<McpServerStatus[]> {
    await Promise.all(this.configured().map((config) => this.connection(config.name, signal).catch(() => undefined)));
    return this.status();
  }

  /** Starts the servers in the background (a session opening); returns at once. */
  startInBackground(): void {
    void this.startAll();
  }

  async listResources(signal?: AbortSignal): Promise<McpResourceListing[]> {
    const lists = await Promise.all(
      this.configured().map(async (config) => {
        try {
          const connection = await this.connection(config.name, signal);
          return (await connection.listResources(signal)).map((r) => ({ ...r, server: config.name }));
        } catch {
          return [];
        }
      }),
    );
    return lists.flat();
  }

  async readResource(server: string, uri: string, signal?: AbortSignal): Promise<McpResourceText> {
    return (await this.connection(server, signal)).readResource(uri, signal);
  }

  async listPrompts(signal?: AbortSignal): Promise<McpPromptInfo[]> {
    const lists = await Promise.all(
      this.configured().map(async (config) => {
        try {
          const connection = await this.connection(config.name, signal);
          return (await connection.listPrompts(signal)).map((p) => ({ ...p, server: config.name, command: mcpPromptCommand(config.name, p.name) }));
        } catch {
          return [];
        }
      }),
    );
    return lists.flat();
  }

  async getPrompt(server: string, name: string, args: Record<string, string>, signal?: AbortSignal): Promise<McpPromptText> {
    return (await this.connection(server, signal)).getPrompt(name, args, signal);
  }

  /** The prompts of the servers running now, as each listed them: nothing starts and nothing waits. */
  listedPrompts(): McpPromptInfo[] {
    return this.configured().flatMap((c) => {
      const run = this.current(c);
      return run?.state === 'running' ? (run.prompts ?? []) : [];
    });
  }

  /** The resources of the servers running now, as each listed them: nothing starts and nothing waits. */
  listedResources(): McpResourceListing[] {
    return this.configured().flatMap((c) => {
      const run = this.current(c);
      return run?.state === 'running' ? (run.resources ?? []) : [];
    });
  }

  /** A prompt source for a list that must never wait on a server: it offers the listed prompts; getting one starts its server if it stopped. */
  readonly listedPromptSource: McpPromptSource = {
    listPrompts: () => Promise.resolve(this.listedPrompts()),
    getPrompt: (server, name, args, signal) => this.getPrompt(server, name, args, signal),
  };

  /** The server's connection, starting it (after its gate) when it is not running. Rejects with a message for the user. */
  connection(name: string, signal?: AbortSignal): Promise<McpConnection> {
    const config = this.configured().find((c) => c.name === name);
    if (!config) return Promise.reject(new Error(`No MCP server named "${name}" is configured.`));
    const existing = this.current(config);
    if (existing?.connection && (existing.state === 'running' || existing.state === 'starting')) return existing.connection;
    const run: Running = { config, state: 'starting', tools: existing?.tools ?? [] };
    run.connection = this.start(run, signal);
    this.running.set(name, run);
    this.changed();
    return run.connection;
  }

  /** Stops every server (the window closes, the configuration changed). */
  async dispose(): Promise<void> {
    const all = [...this.running.values()];
    this.running.clear();
    await Promise.all(all.map(async (r) => (await r.connection?.catch(() => undefined))?.close()));
  }

  /** Stops servers whose configuration changed or went away; they start again on next use. */
  async reconcile(): Promise<void> {
    const stale = [...this.running.entries()].filter(([name, run]) => this.configured().find((c) => c.name === name) === undefined || !sameConfig(this.configured().find((c) => c.name === name)!, run.config));
    for (const [name] of stale) this.running.delete(name);
    if (stale.length > 0) this.changed();
    await Promise.all(stale.map(async ([, r]) => (await r.connection?.catch(() => undefined))?.close()));
  }

  private current(config: McpServerConfig): Running | undefined {
    const run = this.running.get(config.name);
    return run && sameConfig(run.config, config) ? run : undefined;
  }

  private async start(run: Running, signal?: AbortSignal): Promise<McpConnection> {
    const allowed = await this.gate(run.config, signal);
    if (allowed !== true) {
      this.settle(run, 'not allowed', allowed, []);
      throw new Error(allowed);
    }
    let connection: McpConnection;
    try {
      connection = await this.connector(run.config, signal);
    } catch (error) {
      this.settle(run, 'failed', (error as Error).message, []);
      throw error;
    }
    let tools: McpToolInfo[];
    try {
      tools = await connection.listTools(signal);
    } catch (error) {
      await connection.close();
      this.settle(run, 'failed', (error as Error).message, []);
      throw error;
    }
    connection.onClosed((reason) => {
      if (this.running.get(run.config.name) === run && run.state === 'running') this.settle(run, 'failed', `The MCP server "${run.config.name}" stopped: ${reason} It starts again on next use.`, run.tools);
    });
    this.settle(run, 'running', undefined, tools);
    // Listed after it runs, so its tools never wait on its prompts; a server without prompts lists none.
    connection.listPrompts(signal).then(
      (prompts) => {
        run.prompts = prompts.map((p) => ({ ...p, server: run.config.name, command: mcpPromptCommand(run.config.name, p.name) }));
        this.changed();
      },
      () => undefined,
    );
    connection.listResources(signal).then(
      (resources) => {
        run.resources = resources.map((r) => ({ ...r, server: run.config.name }));
        this.changed();
      },
      () => undefined,
    );
    return connection;
  }

  private settle(run: Running, state: McpServerState, message: string | undefined, tools: McpToolInfo[]): void {
    run.state = state;
    run.message = message;
    run.tools = tools;
    if (state !== 'running' && state !== 'starting') run.connection?.catch(() => undefined);
    this.changed();
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

function sameConfig(a: McpServerConfig, b: McpServerConfig): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
