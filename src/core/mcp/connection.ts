import type { McpPromptText } from './promptSource';
import type { McpServerConfig } from './serverConfig';

/** A tool as a server lists it (its input schema is the server's, passed on as it is). */
export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** A call's result as text for the model: text parts joined, other parts named by what was left out. */
export interface McpToolResult {
  text: string;
  isError: boolean;
}

export interface McpResourceInfo {
  uri: string;
  name: string;
  description?: string;
  mimeType?: string;
  /** Bytes, when the server says. */
  size?: number;
}

export interface McpResourceText {
  uri: string;
  mimeType?: string;
  text: string;
}

export interface McpPromptListing {
  name: string;
  description?: string;
  arguments: Array<{ name: string; description?: string; required: boolean }>;
}

/** One running server, as a Node transport (stdio or streamable HTTP) connects it; every method rejects with a message fit for the user. */
export interface McpConnection {
  readonly server: McpServerConfig;
  listTools(signal?: AbortSignal): Promise<McpToolInfo[]>;
  callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<McpToolResult>;
  listResources(signal?: AbortSignal): Promise<McpResourceInfo[]>;
  readResource(uri: string, signal?: AbortSignal): Promise<McpResourceText>;
  listPrompts(signal?: AbortSignal): Promise<McpPromptListing[]>;
  getPrompt(name: string, args: Record<string, string>, signal?: AbortSignal): Promise<McpPromptText>;
  /** Told once when the server goes away (exited, connection lost, closed). */
  onClosed(listener: (reason: string) => void): void;
  close(): Promise<void>;
}

/** Starts a server; rejects with a clear message when it fails to start or to answer within the time limit. */
export type McpConnector = (server: McpServerConfig, signal?: AbortSignal) => Promise<McpConnection>;
