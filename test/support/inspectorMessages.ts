/** The inspector's messages for whole states given by a test, as the feed makes them from a session's state. */
import type { InspectorParts } from '../../src/host/inspector/inspectorState';
import { InspectorUpdates } from '../../src/host/inspector/inspectorUpdates';
import type { InspectorChange } from '../../src/host/sessionState/sessionPatch';
import type { HostToInspector, InspectorState } from '../../src/protocol/inspector';

/** The parts a session's state gives the inspector, from a whole state. */
export function partsOf(s: InspectorState): InspectorParts {
  const { requests, current, blobs, blobTitles, compactions, ...small } = s;
  return { small, requests, blobs, titles: new Map(Object.entries(blobTitles ?? {})), compactions, current: () => current };
}

/** What a write of the session touches, by default: its requests, results and working context. */
export const WROTE: InspectorChange = { requests: true, blobs: true, context: true };

/** The host's side: the whole state first (or when asked), then an update for each change. */
export class InspectorHost {
  readonly updates = new InspectorUpdates();
  private started = false;

  message(next: InspectorState, change: InspectorChange | 'whole' = WROTE): HostToInspector {
    if (change === 'whole' || !this.started) {
      this.started = true;
      return this.updates.whole(partsOf(next));
    }
    const message = this.updates.update(partsOf(next), change);
    if (!message) throw new Error('an update was expected');
    return message;
  }

  showEarlier(list: 'requests' | 'results' | 'current'): void {
    this.updates.showEarlier(list);
  }
}
