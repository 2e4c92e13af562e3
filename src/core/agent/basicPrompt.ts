import { countText, countToolDefinitions } from '../accounting/messageTokens';
import type { TokenCounter } from '../accounting/tokenizer';
import type { ToolDefinition } from '../model/tool';
import type { ContextSettings } from '../settings';
import type { PreparedPrompt, PromptSource } from './agentSession';

export const BASE_INSTRUCTIONS = [
  'You are Tally, a coding agent working inside the user\'s VS Code workspace.',
  'Tools: read_file, list_files and search_text to explore; edit_file (exact replacements) and write_file to change files; run_command to run tests and builds. Edits and commands may need the user\'s approval; if the user denies one, do not retry it unchanged.',
  'Work step by step: read before you change, run the tests that matter, and keep edits minimal.',
  'Large tool outputs are stored in full and shown as a reference with a preview; call read_result with the ref_id to read more.',
  'Older parts of the conversation may be replaced by checkpoints or archived pointers when the context fills up; the originals are kept and archived outputs stay readable with read_result.',
  'When the context is nearly full before a large operation, you may call compact_context.',
].join('\n');

/**
 * A prompt with a static, cacheable prefix (base instructions, then project instructions) and the
 * dynamic context status sent after the conversation, so the prefix stays byte-identical.
 */
export class BasicPromptSource implements PromptSource {
  constructor(
    private readonly counter: TokenCounter,
    private readonly settings: ContextSettings,
    private readonly tools: () => ToolDefinition[],
    private readonly instructions: () => Promise<string | undefined>,
  ) {}

  async prepare(args: { effectiveWindow: number; percentUsed: number }): Promise<PreparedPrompt> {
    const instructions = (await this.instructions())?.trim();
    const system = [{ text: BASE_INSTRUCTIONS, cacheBreakpoint: !instructions }];
    if (instructions) system.push({ text: `Project instructions (AGENTS.md):\n${instructions}`, cacheBreakpoint: true });
    const tools = [...this.tools()].sort((a, b) => a.name.localeCompare(b.name));
    const tailNotes: string[] = [];
    if (args.percentUsed >= this.settings.compactNoteAt) {
      tailNotes.push(`[Context: ${Math.round(args.percentUsed * 100)}% used. You can call compact_context to free space before continuing with large operations.]`);
    }
    return {
      system,
      tools,
      tailNotes,
      fixed: {
        system: system.reduce((n, b) => n + countText(b.text, this.counter), 0) + tailNotes.reduce((n, t) => n + countText(t, this.counter), 0),
        skills: 0,
        tools: countToolDefinitions(tools, this.counter),
      },
    };
  }
}
