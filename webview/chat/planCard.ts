import type { ChatPlanView } from '../../src/protocol/chat';
import { button, textArea } from '../ui/controls';
import { h, replace } from '../ui/dom';
import { renderMarkdown, type MarkdownActions } from './markdown';

/** What the plan card asks the host: save an edit, approve (with the text being edited), discard. */
export interface PlanCardActions extends MarkdownActions {
  onEditPlan: (messageId: string, text: string) => void;
  onApprovePlan: (messageId: string, text?: string) => void;
  onDiscardPlan: (messageId: string) => void;
}

const STATUS: Record<ChatPlanView['status'], string> = {
  proposed: 'Edit, approve or discard it',
  approved: '✓ Approved',
  discarded: 'Discarded',
  passed: 'Not acted on',
};

/** The text being edited in a card, by the message that proposed the plan: kept when the card is drawn again. */
const editing = new Map<string, string>();

/**
 * A plan the agent proposed at the end of a plan-mode turn: its text (as the user last saved it),
 * and while it is still open Edit (the text in place, then Save or Approve), Approve and Discard.
 * What the plan is and what was done with it is the host's; only the edit in progress is the card's.
 */
export function renderPlanCard(messageId: string, plan: ChatPlanView, actions: PlanCardActions): HTMLElement {
  const card = h('section', { class: `plan-card plan-${plan.status}`, attrs: { 'data-plan-status': plan.status, 'data-plan-edited': plan.edited, 'aria-label': 'Plan' } });
  const draw = () => {
    const open = plan.status === 'proposed';
    const draft = open ? editing.get(messageId) : undefined;
    replace(card, [
      h('div', { class: 'plan-head' }, [
        h('span', { class: 'plan-title', text: 'Plan' }),
        plan.edited ? h('span', { class: 'plan-edited', text: 'edited' }) : null,
        h('span', { class: 'plan-status', text: STATUS[plan.status] }),
      ]),
      draft === undefined ? h('div', { class: 'plan-body' }, [renderMarkdown(plan.text, actions, `plan:${messageId}`)]) : editor(draft),
      open ? h('div', { class: 'plan-actions' }, draft === undefined ? idleButtons() : editButtons()) : null,
    ]);
  };
  let input: ReturnType<typeof textArea> | undefined;
  const editor = (draft: string) => {
    input = textArea({ label: 'Edit the plan', rows: Math.min(16, Math.max(4, draft.split('\n').length + 1)), class: 'plan-editor' });
    input.value = draft;
    input.element.addEventListener('input', () => editing.set(messageId, input!.value));
    return input.element;
  };
  const idleButtons = () => [
    button('Approve', () => actions.onApprovePlan(messageId), { attrs: { 'data-action': 'approve-plan' } }),
    button('Edit', () => {
      editing.set(messageId, plan.text);
      draw();
      input?.focus();
    }, { appearance: 'secondary', attrs: { 'data-action': 'edit-plan' } }),
    button('Discard', () => actions.onDiscardPlan(messageId), { appearance: 'secondary', attrs: { 'data-action': 'discard-plan' } }),
  ];
  const editButtons = () => [
    button('Approve', () => {
      const text = input?.value ?? plan.text;
      editing.delete(messageId);
      actions.onApprovePlan(messageId, text);
    }, { attrs: { 'data-action': 'approve-plan' } }),
    button('Save', () => {
      const text = input?.value ?? plan.text;
      if (!text.trim()) return;
      editing.delete(messageId);
      actions.onEditPlan(messageId, text);
      draw();
    }, { appearance: 'secondary', attrs: { 'data-action': 'save-plan' } }),
    button('Cancel', () => {
      editing.delete(messageId);
      draw();
    }, { appearance: 'secondary', attrs: { 'data-action': 'cancel-plan-edit' } }),
  ];
  draw();
  return card;
}
