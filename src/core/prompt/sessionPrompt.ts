import { countToolDefinitions } from '../accounting/messageTokens';
import type { TokenCounter } from '../accounting/tokenizer';
import type { PreparedPrompt, PromptSource } from '../agent/agentSession';
import type { ToolDefinition } from '../model/tool';
import type { ContextSettings } from '../settings';
import type { Tool, ToolOutput } from '../tools/types';
import { BASE_INSTRUCTIONS } from './baseInstructions';
import { fixedOf, promptSection, toolSections, type InstructionPart, type PromptSection, type PromptSections, type ToolText } from './promptSections';
import { ACTIVATE_SKILL_TOOL, skillsIndex, type Skill } from './skills';
import { searchTools, selectTools, TOOL_SEARCH_TOOL } from './toolDeferral';

export interface SessionPromptOptions {
  counter: TokenCounter;
  settings: ContextSettings;
  /** Every tool the session could offer (built-ins first, then skill, extension and MCP tools). */
  tools: () => ToolDefinition[];
  /** AGENTS.md: one file per part (nested ones that follow the active file go in the dynamic part), or one merged text. */
  instructions: () => Promise<string | undefined | readonly InstructionPart[]>;
  skills: () => Promise<Skill[]>;
  /** A skill's full text when it is activated (read from its SKILL.md); throws with the reason when it cannot be read. */
  skillText?: (skill: Skill) => Promise<string>;
  /** Said with every tool_search answer, e.g. why some tools are not offered at all. */
  toolSearchNote?: () => string | undefined;
  /** A tool's text as the session's provider sends it (default: name, description and schema). */
  toolText?: ToolText;
}

/** The AGENTS.md parts: a merged text (older callers, tests) is one stable part. */
function instructionParts(instructions: string | undefined | readonly InstructionPart[]): readonly InstructionPart[] {
  if (typeof instructions !== 'string') return (instructions ?? []).filter((p) => p.text.trim());
  return instructions.trim() ? [{ path: 'AGENTS.md', label: 'AGENTS.md', text: instructions.trim(), followsActiveFile: false }] : [];
}

function sameSection(a: PromptSection, b: Omit<PromptSection, 'tokens'>): boolean {
  return a.text === b.text && a.kind === b.kind && a.label === b.label && a.path === b.path && a.source === b.source && a.skills === b.skills;
}

/**
 * Builds each request's prompt in a fixed order, static to dynamic. The stable prefix: base
 * instructions, each AGENTS.md that does not depend on the active file, the skills index, active
 * skills — each a system block, with cache breakpoints after the instructions and after the skills.
 * The dynamic part: nested AGENTS.md files that follow the active file, the deferred-tools note and
 * the context-status note; the session sends it after the conversation (see
 * core/context/requestItems.ts), so when it changes the prompt cache still holds everything before it.
 * It also answers activate_skill and tool_search, which change what the next prompt carries.
 */
export class SessionPrompt implements PromptSource {
  private readonly active = new Map<string, string>();
  private readonly promoted = new Set<string>();
  private readonly lastUsed = new Map<string, number>();
  private deferred: ToolDefinition[] = [];
  /** The tools the last prompt offered (sent in full), as their definitions. */
  private offeredTools: ToolDefinition[] = [];
  private knownSkills: Skill[] = [];
  private uses = 0;
  /** The last prompt's sections by id, reused while their fields are the same (counted, hashed and previewed once). */
  private sectionsById = new Map<string, PromptSection>();
  /** Each tool definition's tokens with its framing, counted once per definition object. */
  private readonly definitionTokens = new WeakMap<ToolDefinition, number>();

  constructor(private readonly options: SessionPromptOptions) {}

  async prepare(args: { effectiveWindow: number; percentUsed: number }): Promise<PreparedPrompt> {
    const { counter, settings } = this.options;
    const [instructions, skills] = await Promise.all([this.options.instructions(), this.options.skills()]);
    this.knownSkills = skills;
    const previous = this.sectionsById;
    const current = new Map<string, PromptSection>();
    this.sectionsById = current;
    const section = (s: Omit<PromptSection, 'tokens'>): PromptSection => {
      const known = previous.get(s.id);
      const made = known && sameSection(known, s) ? known : promptSection(counter, s);
      current.set(s.id, made);
      return made;
    };
    const stable: PromptSection[] = [section({ id: 'system:base', kind: 'system-section', label: 'Base instructions', text: BASE_INSTRUCTIONS })];
    const dynamic: PromptSection[] = [];
    for (const part of instructionParts(instructions)) {
      if (part.hook) {
        dynamic.push(section({ id: `hook:${part.path}`, kind: 'hook', label: part.label, source: part.hook.command, text: `Added by a ${part.label} (${part.hook.command}):\n${part.text}` }));
        continue;
      }
      const text = part.followsActiveFile ? `Instructions from ${part.label} (${part.because ?? 'the active file is below it'}):\n${part.text}` : `Project instructions (${part.label}):\n${part.text}`;
      (part.followsActiveFile ? dynamic : stable).push(section({ id: `agents:${part.path}`, kind: 'agents-md', label: part.label, path: part.path, text }));
    }
    const instructionsEnd = stable.length;
    const index = skillsIndex(skills);
    if (index) stable.push(section({ id: 'skills:index', kind: 'skills-index', label: 'Skills index', text: index, skills: true }));
    for (const [name, text] of [...this.active.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      const skill = skills.find((s) => s.name === name);
      stable.push(section({ id: `skill:${name}`, kind: 'skill', label: `Skill: ${name}`, path: skill?.path, source: skill?.origin, text: `## Skill: ${name}\n${text.trim()}`, skills: true }));
    }
    // Cache breakpoints after the instructions and after the skills: both change rarely.
    const system: PreparedPrompt['system'] = stable.map((s, i) => ({ text: s.text, ...(i === instructionsEnd - 1 || (i === stable.length - 1 && i >= instructionsEnd) ? { cacheBreakpoint: true } : {}) }));

    const all = [...this.options.tools(), ...(skills.length ? [ACTIVATE_SKILL_TOOL] : [])];
    const selection = selectTools({ tools: all, countTokens: (d) => this.toolTokens(d), effectiveWindow: args.effectiveWindow, share: settings.toolDeferralShare, lastUsed: this.lastUsed, promoted: this.promoted });
    this.deferred = selection.deferred;
    this.offeredTools = selection.active;
    if (selection.note) dynamic.push(section({ id: 'note:deferred', kind: 'note', label: 'Deferred tools note', text: selection.note }));
    if (args.percentUsed >= settings.compactNoteAt) {
      const text = `[Context: ${Math.round(args.percentUsed * 100)}% used. You can call compact_context to free space before continuing with large operations.]`;
      dynamic.push(section({ id: 'note:context', kind: 'note', label: 'Context status note', text }));
    }
    const sections: PromptSections = { system: stable, tools: toolSections(selection.active, selection.deferred, counter, this.options.toolText), dynamic };
    return { system, tools: selection.active, sections, fixed: fixedOf(sections) };
  }

  /** The tools the latest prompt offered in full (Configure Tools lists them with their cost). */
  lastOffered(): readonly ToolDefinition[] {
    return this.offeredTools;
  }

  /**
   * What offering one tool adds to every request: its name, description and schema with its
   * framing — the figure the inspector's tool item and the tool framing item add up to.
   */
  toolCost(definition: ToolDefinition): number {
    return this.toolTokens([definition]);
  }

  private toolTokens(definitions: readonly ToolDefinition[]): number {
    let total = 0;
    for (const definition of definitions) {
      let tokens = this.definitionTokens.get(definition);
      if (tokens === undefined) {
        tokens = countToolDefinitions([definition], this.options.counter);
        this.definitionTokens.set(definition, tokens);
      }
      total += tokens;
    }
    return total;
  }

  /** Keeps recently used tools offered: told of every tool call. */
  noteToolUse(name: string): void {
    this.lastUsed.set(name, ++this.uses);
  }

  /** tool_search and activate_skill, which change what the next prompt carries; the prompt offers them itself. */
  tools(): Tool[] {
    return [
      { definition: TOOL_SEARCH_TOOL, approval: 'read', unlisted: true, execute: async (args) => this.searchTools(String(args.query ?? '')) },
      { definition: ACTIVATE_SKILL_TOOL, approval: 'read', unlisted: true, execute: async (args) => this.activateSkill(args.name) },
    ];
  }

  private searchTools(query: string): ToolOutput {
    const found = searchTools(query, this.deferred);
    const note = this.options.toolSearchNote?.();
    const withNote = (text: string) => ({ output: note ? `${text}\n${note}` : text });
    if (found.length === 0) return withNote(`No deferred tool matches "${query}". ${this.deferred.length} tools are deferred.`);
    for (const tool of found) this.promoted.add(tool.name);
    return withNote(`These tools are available from the next request:\n${found.map((t) => `- ${t.name}: ${t.description}\n  input: ${JSON.stringify(t.inputSchema)}`).join('\n')}`);
  }

  private async activateSkill(name: unknown): Promise<ToolOutput> {
    const skill = this.knownSkills.find((s) => s.name === name);
    if (!skill) return { output: `No skill named "${String(name)}". Available: ${this.knownSkills.map((s) => s.name).join(', ') || 'none'}.`, isError: true };
    let text: string;
    try {
      if (!this.options.skillText) throw new Error('skills cannot be read in this session');
      text = await this.options.skillText(skill);
    } catch (error) {
      return { output: `Skill "${skill.name}" could not be loaded: ${(error as Error).message}`, isError: true };
    }
    this.active.set(skill.name, text);
    return { output: `Skill "${skill.name}" is active; its instructions are in the system prompt from the next request.` };
  }
}
