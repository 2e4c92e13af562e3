import type { CompactionEvent } from '../../core/compaction/events';
import type { CompactionTrigger } from '../../core/model/records';
import type { ChatEntry } from '../../protocol/chat';
import { countOf } from '../../protocol/wording';

/** A compaction that is running now, as the chat shows it. */
export interface CompactionActivity {
  id: string;
  trigger: CompactionTrigger;
  /** The context when it started, as the meter showed it. */
  tokensBefore: number;
  step?: string;
}

const WHY: Record<CompactionTrigger, string> = {
  auto: 'the context is near its limit',
  blocked: 'the next request would not fit',
  manual: 'you asked for it',
  overflow: 'the provider refused a request as too long',
  tool: 'the model asked for it',
  rewind: 'you rewound the conversation',
  fork: 'you forked the session',
  restore: 'you restored files',
};

/** Follows the context manager's compaction events; previews (dry runs) are not shown. */
export function nextCompactionActivity(current: CompactionActivity | undefined, event: CompactionEvent): CompactionActivity | undefined {
  switch (event.type) {
    case 'start':
      return event.dryRun ? current : { id: event.id, trigger: event.trigger, tokensBefore: event.tokensBefore };
    case 'progress':
      return current && current.id === event.id ? { ...current, step: event.step } : current;
    case 'complete':
    case 'error':
      return current?.id === event.id ? undefined : current;
  }
}

export function compactionActivity(activity: CompactionActivity): ChatEntry {
  const step = activity.step ? ` — ${activity.step}` : '';
  return {
    kind: 'notice',
    id: `compacting-${activity.id}`,
    level: 'info',
    busy: true,
    text: `Compacting the context (${countOf(activity.tokensBefore, 'token')}) because ${WHY[activity.trigger] ?? activity.trigger}${step}…`,
  };
}
