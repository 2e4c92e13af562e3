import { countText, countToolDefinitions } from '../accounting/messageTokens';
import type { TokenCounter } from '../accounting/tokenizer';
import type { PreparedPrompt, PromptSource } from '../agent/agentSession';
import type { ToolDefinition } from '../model/tool';
import type { ContextSettings } from '../settings';
import type { Tool, ToolOutput } from '../tools/types';
import { BASE_INSTRUCTIONS } from './baseInstructions';
import { ACTIVATE_SKILL_TOOL, skillsIndex, type Skill } from './skills';
import { searchTools, selectTools, TOOL_SEARCH_TOOL } from './toolDeferral';

export interface SessionPromptOptions {
  counter: TokenCounter;
  settings: ContextSettings;
  /** Every tool the session could offer (built-ins first, then skill, extension and MCP tools). */
  tools: () => ToolDefinition[];
  instructions: () => Promise<string | undefined>;
  skills: () => Promise<Skill[]>;
  /** A skill's full text when it is activated (read from its SKILL.md); throws with the reason when it cannot be read. */
  skillText?: (skill: Skill) => Promise<string>;
  /** Said with every tool_search answer, e.g. why some tools are not offered at all. */
  toolSearchNote?: () => string | undefined;
}

/**
 * Builds each request's prompt in a fixed order, static to dynamic: base instructions,
 * AGENTS.md, the skills index, active skills — each a system block, with cache breakpoints after
 * the instructions and after the skills — then the dynamic notes (context status, deferred tools)
 * sent after the conversation so the cached prefix stays byte-identical between requests.
 * It also answers activate_skill and tool_search, which change what the next prompt carries.
 */
export class SessionPrompt implements PromptSource {
  private readonly active = new Map<string, string>();
  private readonly promoted = new Set<string>();
  private readonly lastUsed = new Map<string, number>();
  private deferred: ToolDefinition[] = [];
  private knownSkills: Skill[] = [];
  private uses = 0;

  constructor(private readonly options: SessionPromptOptions) {}

  async prepare(args: { effectiveWindow: number; percentUsed: number }): Promise<PreparedPrompt> {
    const { counter, settings } = this.options;
    const [instructions, skills] = await Promise.all([this.options.instructions(), this.options.skills()]);
    this.knownSkills = skills;
    const system: PreparedPrompt['system'] = [{ text: BASE_INSTRUCTIONS }];
    if (instructions?.trim()) system.push({ text: `Project instructions (AGENTS.md):\n${instructions.trim()}` });
    system[system.length - 1].cacheBreakpoint = true;
    const index = skillsIndex(skills);
    const activeText = [...this.active.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, text]) => `## Skill: ${name}\n${text.trim()}`).join('\n\n');
    if (index) system.push({ text: index });
    if (activeText) system.push({ text: activeText });
    if (index || activeText) system[system.length - 1].cacheBreakpoint = true;

    const all = [...this.options.tools(), ...(skills.length ? [ACTIVATE_SKILL_TOOL] : [])];
    const selection = selectTools({ tools: all, countTokens: (d) => countToolDefinitions(d, counter), effectiveWindow: args.effectiveWindow, share: settings.toolDeferralShare, lastUsed: this.lastUsed, promoted: this.promoted });
    this.deferred = selection.deferred;
    const tailNotes: string[] = [];
    if (selection.note) tailNotes.push(selection.note);
    if (args.percentUsed >= settings.compactNoteAt) {
      tailNotes.push(`[Context: ${Math.round(args.percentUsed * 100)}% used. You can call compact_context to free space before continuing with large operations.]`);
    }
    const systemTokens = system.slice(0, instructions?.trim() ? 2 : 1).reduce((n, b) => n + countText(b.text, counter), 0);
    const skillTokens = (index ? countText(index, counter) : 0) + (activeText ? countText(activeText, counter) : 0);
    return {
      system,
      tools: selection.active,
      tailNotes,
      fixed: {
        system: systemTokens + tailNotes.reduce((n, t) => n + countText(t, counter), 0),
        skills: skillTokens,
        tools: countToolDefinitions(selection.active, counter),
      },
    };
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
