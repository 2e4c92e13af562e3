import type { AgentEvent } from '../core/agent/events';
import type { ContextSession } from '../core/context/contextSession';
import type { SessionStore } from '../core/ports/sessionStore';
import type { TallyConfiguration } from '../config/readSettings';
import { followSession } from '../host/sessionState/followSession';
import type { ActiveSession, ShownSession } from '../host/sessionState/sessionPorts';
import type { AgentFactory } from '../agents/agentFactory';

/**
 * A shown session whose working context resumed, made active: its agent (when it has a model),
 * and its writes, compactions and agent events fed into its state from now on (`relay` hears each
 * agent event after the state folded it). `stop` ends the feeding.
 */
export async function activateSession(
  shown: ShownSession,
  contextSession: ContextSession,
  deps: { agents: Pick<AgentFactory, 'create'>; config: TallyConfiguration; store: SessionStore; relay(event: AgentEvent): void },
): Promise<{ session: ActiveSession; stop(): void }> {
  const session: ActiveSession = { ...shown, contextSession };
  // A turn runs in the mode its user message was sent in (plan mode: read and search only).
  const mode = (): 'plan' | 'act' => (shown.state.plans.turnInPlanMode ? 'plan' : 'act');
  if (shown.chat) session.agent = await deps.agents.create({ contextSession, chat: shown.chat, config: deps.config, store: deps.store, mode });
  // A new session's figures count the prompt its first request carries (the system prompt, the tools).
  await session.agent?.preparePromptFigures?.().catch(() => undefined);
  const stop = followSession(shown.state, contextSession, session.agent, deps.relay);
  shown.state.apply({ kind: 'resumed', context: contextSession });
  return { session, stop };
}
