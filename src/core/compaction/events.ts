import type { CompactionEventRecord, CompactionTrigger } from '../model/records';

/** Compaction lifecycle: every start ends in exactly one complete or error. */
export type CompactionEvent =
  | { type: 'start'; id: string; trigger: CompactionTrigger; focus?: string; tokensBefore: number; messagesBefore: number; dryRun: boolean }
  | { type: 'progress'; id: string; strategy?: string; step: string }
  | { type: 'complete'; id: string; record: CompactionEventRecord; dryRun: boolean }
  | { type: 'error'; id: string; error: string; record: CompactionEventRecord };

export type CompactionListener = (event: CompactionEvent) => void;
