import type { AgentEvent } from '../../core/agent/events';
import type { CompactionListener } from '../../core/compaction/events';
import type { SessionChangeListener } from '../../core/context/sessionChanges';
import type { SessionState } from './sessionState';

/** What a resumed session reports: its writes and compactions (a ContextSession), and its agent's events. */
export interface FollowedSession {
  onChange(listener: SessionChangeListener): () => void;
  onCompaction(listener: CompactionListener): () => void;
}

/**
 * Feeds a resumed session's writes, compactions and agent events into its state, in the order
 * they happen; `relay` hears each agent event after the state folded it. Returns how to stop.
 */
export function followSession(state: SessionState, session: FollowedSession, agent?: { on(listener: (event: AgentEvent) => void): () => void }, relay?: (event: AgentEvent) => void): () => void {
  const stops = [
    session.onChange((change) => state.apply({ kind: 'change', change })),
    session.onCompaction((event) => state.apply({ kind: 'compaction', event })),
    ...(agent
      ? [
          agent.on((event) => {
            state.apply({ kind: 'agent', event });
            relay?.(event);
          }),
        ]
      : []),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}
