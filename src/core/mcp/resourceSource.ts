import type { McpResourceText } from './connection';
import type { McpResourceListing } from './mcpServers';

/**
 * The MCP resources the chat's `#` list offers: those the running servers listed (nothing waits on
 * a server), read when one is attached. What a server says is untrusted text: shown and counted.
 */
export interface ResourceAttachments {
  listed(): McpResourceListing[];
  read(server: string, uri: string): Promise<McpResourceText>;
}
