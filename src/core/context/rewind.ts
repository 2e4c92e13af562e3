import { transcriptIdsOf } from '../compaction/removedItems';
import { pairingViolations } from '../history/normalize';
import { compareTranscriptOrder, placeOf, type Message } from '../model/message';
import type { CompactionEventRecord, HistoryStep } from '../model/records';
import type { ArchivedMessage, HistoryArchive } from './historyArchive';

/** A rewind Tally refuses, with why in words. */
export class RewindRefused extends Error {}

/** What a rewind to before a user message does, worked out without changing anything. */
export interface RewindPlan {
  /** The user message rewound to. */
  message: Message;
  /** The working context it leaves: what preceded the message, in its compacted form. */
  messages: Message[];
  /** Messages the context stops holding, themselves or through a summary (the message itself among them). */
  setAside: number;
  /**
   * Items that come back because a summary (or pointer, or marker) that stood for them also stood
   * for what is set aside: its parts from before the message take its place.
   */
  unsummarized: number;
  /**
   * Items that come back from the session this one was forked from: its transcript messages join
   * this session's transcript, and the stored results they name are shared.
   */
  borrowed: Array<{ message: Message; fromSessionId: string; inTranscript: boolean }>;
}

/**
 * The working context a rewind to before user message `messageId` leaves: every item of the
 * context now that stands only for messages from before it stays as it is (summaries standing in
 * for what they replaced); every item that stands only for the message or later ones is set aside;
 * an item that stands for both (a checkpoint that summarized the turns on both sides of a user
 * message it kept) is taken apart into the items it replaced, recursively, and those from before
 * the message come back — the original messages when an older version recorded no parts — each
 * where it stood among the others (by placeOf: a reply after the user message it answered, not
 * where the checkpoint stood).
 * Refused when the message is not one the user sent, or an earlier rewind already set it aside.
 */
export async function planRewind(working: readonly Message[], messageId: string, archive: HistoryArchive): Promise<RewindPlan> {
  const found = await archive.find(messageId);
  const message = found?.message;
  if (!message) throw new RewindRefused('Tally has no record of this message in this session, so it cannot rewind to before it.');
  if (message.role !== 'user' || message.kind !== 'user' || !message.agentVisible) throw new RewindRefused('Only a message you sent can be rewound to.');
  const covered = coveredIds(working);
  if (!covered.has(messageId)) {
    throw new RewindRefused('An earlier rewind set this message aside, so Tally cannot rewind to before it. Rewind to a message after that rewind, or start a new session.');
  }
  // Its attachments go with it: they were sent with it.
  const cut = (await archive.appendedAt(messageId)) ?? message.createdAt;
  const messages: Message[] = [];
  const borrowed: RewindPlan['borrowed'] = [];
  let unsummarized = 0;
  const keepBefore = async (item: Message, part?: ArchivedMessage): Promise<void> => {
    const span = await archive.span(item);
    if (span.to < cut) {
      placeInTime(messages, item);
      if (part) unsummarized++;
      if (part && part.sessionId !== archive.sessionId) borrowed.push({ message: item, fromSessionId: part.sessionId, inTranscript: part.inTranscript });
      return;
    }
    if (span.from >= cut) return;
    for (const p of await partsOf(item, archive)) await keepBefore(p.message, p);
  };
  for (const item of working) await keepBefore(item);
  const violation = pairingViolations(messages)[0];
  if (violation) throw new Error(`the rewound context would not be valid (${violation.text}); nothing was changed`);
  const kept = coveredIds(messages);
  let setAside = 0;
  for (const id of covered) if (!kept.has(id)) setAside++;
  return { message, messages, setAside, unsummarized, borrowed };
}

/** Puts `item` after every item of `messages` that stands at or before it in time (the list stays in order). */
function placeInTime(messages: Message[], item: Message): void {
  const at = placeOf(item);
  let index = messages.length;
  while (index > 0 && placeOf(messages[index - 1]) > at) index--;
  messages.splice(index, 0, item);
}

/** The transcript ids the visible items of a context stand for. */
function coveredIds(messages: readonly Message[]): Set<string> {
  const ids = new Set<string>();
  for (const m of messages) if (m.agentVisible) for (const id of transcriptIdsOf(m)) ids.add(id);
  return ids;
}

/**
 * The items `item` replaced, in their order: its recorded parts, else (recorded by an older
 * version) the transcript messages it stands for.
 */
async function partsOf(item: Message, archive: HistoryArchive): Promise<ArchivedMessage[]> {
  const recorded = (await archive.find(item.id))?.parts;
  const ids = recorded ?? transcriptIdsOf(item);
  const parts: ArchivedMessage[] = [];
  for (const id of ids) {
    const part = await archive.find(id);
    if (!part || (!recorded && !part.inTranscript)) {
      throw new RewindRefused(`A summary in the context stands for messages on both sides of this one, and Tally no longer has "${id}" it replaced (its session was deleted?), so it cannot take the summary apart. Rewind to a later message, or start a new session.`);
    }
    parts.push(part);
  }
  return recorded ? parts : parts.sort((a, b) => compareTranscriptOrder(a.message, b.message));
}

/**
 * An entry of the session's history for a user's step (rewind, restore), recorded like a
 * compaction: the context before and after in the meter's figure (`measure`) and Tally's estimate.
 */
export function historyStepRecord(args: {
  id: string;
  sessionId: string;
  step: HistoryStep;
  startedAt: number;
  before: readonly Message[];
  after: readonly Message[];
  measure: (messages: readonly Message[]) => number;
  estimate: (messages: readonly Message[]) => number;
}): CompactionEventRecord {
  const { before, after, measure, estimate, step } = args;
  const visible = (messages: readonly Message[]) => messages.filter((m) => m.agentVisible).length;
  return {
    id: args.id,
    sessionId: args.sessionId,
    trigger: step.kind,
    status: 'complete',
    strategies: [],
    tokensBefore: measure(before),
    tokensAfter: measure(after),
    estimatedTokensBefore: estimate(before),
    estimatedTokensAfter: estimate(after),
    messagesBefore: visible(before),
    messagesAfter: visible(after),
    startedAt: args.startedAt,
    durationMs: 0,
    removed: [],
    step,
  };
}
