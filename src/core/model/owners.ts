import type { ComponentTokens } from './records';

/** Who owns a request's tokens, in the order every view stacks them, with the names they show. */
export const TOKEN_OWNERS: ReadonlyArray<{ key: keyof ComponentTokens; label: string; group: 'System' | 'Skills' | 'Tools' | 'Hooks' | 'Conversation' }> = [
  { key: 'system', label: 'System', group: 'System' },
  { key: 'skills', label: 'Skills', group: 'Skills' },
  { key: 'tools', label: 'Tools', group: 'Tools' },
  { key: 'hooks', label: 'Hooks', group: 'Hooks' },
  { key: 'messages', label: 'Messages', group: 'Conversation' },
  { key: 'toolResults', label: 'Tool results', group: 'Conversation' },
  { key: 'summaries', label: 'Summaries', group: 'Conversation' },
  { key: 'plan', label: 'Plan', group: 'Conversation' },
];

/** An owner's tokens in a request's components (0 for an owner the record does not list). */
export function ownerTokens(components: ComponentTokens, key: keyof ComponentTokens): number {
  return components[key] ?? 0;
}
