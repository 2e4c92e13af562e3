/**
 * What the chat's `/` list says: every command the host offers (built in, files, MCP prompts),
 * with what it costs. The host reads and counts them; the webview only shows them.
 */
import type { CommandListing } from '../core/commands/commandCatalog';

/** One line of the `/` list, as the host made it (see CommandListing). */
export type ChatCommandItem = CommandListing;

/** The list's query: at most this many characters after `/`. */
export const COMMAND_QUERY_CHARS = 120;
