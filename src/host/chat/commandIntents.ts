/**
 * The chat's slash commands on the host: the `/` list (every command with its token cost), the
 * cost line of a draft that runs one (the expanded text is what is counted), and a send that runs
 * one (its text, its source, its `@path` files attached as chips). A command that cannot run says
 * why and its typed text goes back to the composer.
 */
import { MESSAGE_OVERHEAD_TOKENS } from '../../core/accounting/messageTokens';
import { CommandError, type CommandCatalog } from '../../core/commands/commandCatalog';
import { parseCommandLine } from '../../core/commands/commandLine';
import { userMessage } from '../../core/model/factories';
import type { Message } from '../../core/model/message';
import type { ChatToHost } from '../../protocol/chat';
import type { ChatCommandItem } from '../../protocol/commands';
import type { Handlers } from '../../protocol/receive';
import type { AttachmentIntentDeps } from './attachmentIntents';

export interface CommandIntentDeps {
  catalog: CommandCatalog;
  postList(queryId: number, items: ChatCommandItem[]): void;
}

/** What a message sends once its command (if any) ran: the text, and the command it came from. */
export interface CommandSend {
  text: string;
  /** "/review from .tally/commands/review.md": recorded on the user message, shown in the inspector. */
  source?: string;
}

/** One text counter per session counter: the catalog keeps each command's line while the counter is the same. */
const counters = new WeakMap<(message: Message) => number, (text: string) => number>();
const roughCount = (text: string) => Math.ceil(text.length / 4);

/** Tokens of a user message's text as the cost line counts them, with the session's counter. */
async function counter(attachments: AttachmentIntentDeps | undefined): Promise<(text: string) => number> {
  const session = attachments ? await attachments.session().catch(() => undefined) : undefined;
  if (!session) return roughCount;
  const sessionCount = session.count;
  let count = counters.get(sessionCount);
  if (!count) counters.set(sessionCount, (count = (text) => sessionCount(userMessage(text)) - MESSAGE_OVERHEAD_TOKENS));
  return count;
}

export function commandHandlers(d: CommandIntentDeps, attachments: AttachmentIntentDeps | undefined): Pick<Handlers<ChatToHost>, 'commandQuery' | 'draft'> {
  return {
    commandQuery: async (m) => {
      const count = await counter(attachments);
      const items = await d.catalog.list(count);
      const query = m.query.toLowerCase();
      d.postList(m.queryId, items.filter((c) => c.name.toLowerCase().startsWith(query) || (query.length > 1 && c.name.toLowerCase().includes(query))));
    },
    // The cost line counts what a command sends, not the `/name` typed (MCP prompts are fetched only at send).
    draft: async (m) => {
      if (!attachments) return;
      const line = parseCommandLine(m.text);
      let text = m.text;
      if (line && !line.name.startsWith('mcp.')) {
        const run = await d.catalog.expand(m.text).catch(() => undefined);
        if (run?.kind === 'message') text = run.text;
      }
      attachments.draft.setDraftText(text);
      attachments.postComposer(await attachments.session());
    },
  };
}

/**
 * Runs the command `text` starts with, if any: its files join the draft's chips (sent and counted
 * like any attachment). Throws CommandError with the reason when it cannot run; the composer gets
 * `text` back.
 */
export async function commandForSend(d: CommandIntentDeps, attachments: AttachmentIntentDeps | undefined, text: string): Promise<CommandSend> {
  try {
    const run = await d.catalog.expand(text);
    if (run.kind !== 'message') return { text };
    if (run.refused.length) throw new CommandError(`/${run.name} was not sent: ${run.refused.map((r) => r.reason).join('; ')}.`);
    if (run.attach.length) {
      if (!attachments) throw new CommandError(`/${run.name} attaches files, and attachments are not available here.`);
      const session = await attachments.session();
      for (const file of run.attach) await attachments.draft.add(session, { kind: 'file', path: file.path });
    }
    return { text: run.text, source: `/${run.name} from ${run.source}` };
  } catch (error) {
    attachments?.postComposer(undefined, text);
    throw error;
  }
}
