import { countText, MESSAGE_OVERHEAD_TOKENS, stableStringify, TOOL_CALL_OVERHEAD_TOKENS } from '../accounting/messageTokens';
import { toolGroupLabel } from '../tools/toolGroup';
import type { TokenCounter } from '../accounting/tokenizer';
import type { FixedComponents } from '../accounting/usageBasis';
import type { PromptItemKind } from '../model/records';
import type { ToolDefinition } from '../model/tool';

/** The id of the note that carries a request's dynamic part (never stored as a message). */
export const DYNAMIC_NOTE_ID = 'dynamic-context';

/** One AGENTS.md file as loaded: its path, a short label, its text, and whether it follows the active file. */
export interface InstructionPart {
  path: string;
  label: string;
  text: string;
  /** A nested file, loaded because the active editor's file or a path the agent worked on is below it: it goes in the dynamic part. */
  followsActiveFile: boolean;
  /** Why a nested file applies, said with its text (default: the active file is below it). */
  because?: string;
  /** Set on what a hook added: the item is the hook's (owner "hooks", source: its command). */
  hook?: { event: string; command: string };
}

/** One part of the prompt outside the conversation, with the exact text sent and its tokens. */
export interface PromptSection {
  /** Stable within a session: 'system:base', 'agents:<path>', 'skill:<name>', 'note:context', … */
  id: string;
  kind: Exclude<PromptItemKind, 'tool-schema' | 'framing'>;
  label: string;
  text: string;
  tokens: number;
  path?: string;
  source?: string;
  /** Counted in the skills component rather than the system one. */
  skills?: boolean;
}

/** One tool definition as offered (or deferred) in a request. */
export interface ToolSection {
  id: string;
  name: string;
  source: string;
  /** The tool's description, flattened and cut, for a preview. */
  description: string;
  /** The definition as the provider sends it (its wire form, as JSON text). */
  text: string;
  /** Name, description and schema tokens; 0 when deferred. The per-tool framing is its own item. */
  tokens: number;
  deferred: boolean;
}

/**
 * Everything a request carries outside the conversation: the stable system sections (one system
 * block each), the tools, and the dynamic part (sections that may change between requests, sent as
 * one note after the conversation, so a change to it leaves the cached prefix whole).
 */
export interface PromptSections {
  system: PromptSection[];
  tools: ToolSection[];
  dynamic: PromptSection[];
}

export function promptSection(counter: TokenCounter, section: Omit<PromptSection, 'tokens'>): PromptSection {
  return { ...section, tokens: countText(section.text, counter) };
}

/** Where a tool comes from, in words: built-in, session (Tally's own tools that act on the session), skill, or the extension / MCP server. */
/** A tool's text when no provider is known (tests, tools outside a session): its name, description and schema. */
export function toolDefinitionText(tool: ToolDefinition): string {
  return JSON.stringify({ name: tool.name, description: tool.description, input_schema: { type: 'object', ...tool.inputSchema } }, null, 2);
}

/** The text the inspector shows for a tool: the provider's own wire form of it (see providers/toolWireForms.ts). */
export type ToolText = (tool: ToolDefinition) => string;

/** Tokens of one tool's name, description and schema (its framing is counted apart). */
export function toolContentTokens(tool: ToolDefinition, counter: Pick<TokenCounter, 'count'>): number {
  return counter.count(tool.name) + counter.count(tool.description) + counter.count(stableStringify(tool.inputSchema));
}

/**
 * A tool's section, the same object from request to request while the definition object, its
 * deferral and the counter are: its text is then stringified and counted once, and its request
 * item (cached by section object) is reused instead of hashed again.
 */
const toolSectionCache = new WeakMap<ToolDefinition, { deferred: boolean; counter: TokenCounter; textOf: ToolText; section: ToolSection }>();

function toolSection(tool: ToolDefinition, deferred: boolean, counter: TokenCounter, textOf: ToolText): ToolSection {
  const known = toolSectionCache.get(tool);
  if (known && known.deferred === deferred && known.counter === counter && known.textOf === textOf) return known.section;
  const section: ToolSection = {
    id: `tool:${tool.name}`,
    name: tool.name,
    source: toolGroupLabel(tool),
    description: tool.description.replace(/\s+/g, ' ').trim().slice(0, 160),
    text: textOf(tool),
    tokens: deferred ? 0 : toolContentTokens(tool, counter),
    deferred,
  };
  toolSectionCache.set(tool, { deferred, counter, textOf, section });
  return section;
}

export function toolSections(active: readonly ToolDefinition[], deferred: readonly ToolDefinition[], counter: TokenCounter, textOf: ToolText = toolDefinitionText): ToolSection[] {
  return [...active.map((t) => toolSection(t, false, counter, textOf)), ...deferred.map((t) => toolSection(t, true, counter, textOf))];
}

/** The text of the dynamic note: its sections' texts, in order. */
export function dynamicNoteText(dynamic: readonly PromptSection[]): string {
  return dynamic.map((s) => s.text).join('\n\n');
}

/**
 * The tokens each component gets from the sections, by definition the sum of the items: system
 * sections and dynamic sections (plus the dynamic note's message framing) in `system`, skills in
 * `skills`, what hooks added in `hooks`, each offered tool's content plus its framing in `tools`.
 */
export function fixedOf(sections: PromptSections): FixedComponents {
  const sum = (list: readonly { tokens: number }[]) => list.reduce((n, s) => n + s.tokens, 0);
  const offered = sections.tools.filter((t) => !t.deferred);
  const all = [...sections.system, ...sections.dynamic];
  const inSystem = all.filter((s) => !s.skills && s.kind !== 'hook');
  const inSkills = all.filter((s) => s.skills);
  const hooks = sum(all.filter((s) => s.kind === 'hook'));
  return {
    system: sum(inSystem) + (sections.dynamic.length ? MESSAGE_OVERHEAD_TOKENS : 0),
    skills: sum(inSkills),
    tools: sum(offered) + offered.length * TOOL_CALL_OVERHEAD_TOKENS,
    ...(hooks ? { hooks } : {}),
  };
}
