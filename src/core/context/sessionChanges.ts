import type { Message } from '../model/message';
import type { CompactionEventRecord, RequestUsageRecord } from '../model/records';
import type { BlobInfo } from '../ports/blobStore';

/**
 * What an offloaded result is called, decided when it is stored: its tool, the arguments of the
 * call it answers, and the request that first carries it (the next one sent).
 */
export interface ResultTitle {
  toolName: string;
  arguments?: string;
  requestIndex: number;
}

/**
 * One write to a session, carrying what was written, so the views fold it into what they show
 * instead of reading the session back. `appended`: new transcript messages, in order;
 * `replaced`: stored messages written again with the same id (a pin).
 */
export type SessionChange =
  | { type: 'messages'; appended: readonly Message[]; replaced: readonly Message[] }
  | { type: 'usage'; record: RequestUsageRecord }
  | { type: 'compaction'; record: CompactionEventRecord }
  | { type: 'result'; blob: BlobInfo; title: ResultTitle };

export type SessionChangeListener = (change: SessionChange) => void;

/** Listeners of a session's changes; one listener's failure never reaches the writer or the others. */
export class SessionChanges {
  private readonly listeners = new Set<SessionChangeListener>();

  on(listener: SessionChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(change: SessionChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch {
        // A view's failure must not break the session.
      }
    }
  }
}
