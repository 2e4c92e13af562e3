import type { ChatEntriesPatch, ChatHeader } from '../../protocol/chat';
import type { RecordsChange } from './sessionRecords';

/** What one input changed of the chat: each part present only when it changed. */
export interface ChatPatch {
  /** The header whole (it is small): busy, the meter, the banner, the title… */
  header?: ChatHeader;
  /** The entries, as a change of those the views hold after the previous patch. */
  entries?: ChatEntriesPatch;
  /** Text or thinking streamed onto the response in flight (the entry `entryId`), to append. */
  streamed?: { entryId: string; text: string; thinking: boolean };
}

/** What one input changed of what the inspector shows; it makes and sends those parts again. */
export interface InspectorChange extends RecordsChange {
  /** The working context moved: the next request's items and the figures are made again. */
  context?: boolean;
}

/** What one input changed, for each view. */
export interface SessionPatch {
  chat: ChatPatch;
  inspector: InspectorChange;
}

export type SessionPatchListener = (patch: SessionPatch) => void;

/** What the fold marks while it takes one input, for the chat's patch. */
export class ChatPatchMarks {
  /** The header changed (busy, banner, title, meter…). */
  header = false;
  /** The meter's figures may have moved: measured again. */
  meter = false;
  /** The turns' figures changed (a request's usage, prices). */
  figures = false;
  /** The tail changed as a whole (a turn started or ended, unsent messages): every tail entry is sent again. */
  tailChanged = false;
  /** Tail entries that changed, by key. */
  readonly tail = new Set<string>();
  /** Calls whose card shows something new (an approval, a subagent's progress). */
  readonly cards = new Set<string>();
}
