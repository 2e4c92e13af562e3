import type { ChatToolCallView } from '../../src/protocol/chat';
import { badge, button, progressRing } from '../ui/controls';
import { details, h } from '../ui/dom';

const STATUS_LABELS: Record<ChatToolCallView['status'], string> = {
  running: 'running',
  awaiting_approval: 'needs approval',
  done: 'done',
  error: 'error',
  denied: 'denied',
  aborted: 'aborted',
};

export interface ToolCardActions {
  onApproval: (callId: string, approved: boolean, forSession?: boolean) => void;
  onOpenResult: (refId: string) => void;
  openArgs: ReadonlySet<string>;
  onToggleArgs: (callId: string, open: boolean) => void;
}

/** Arguments pretty-printed when they are JSON, as given otherwise. */
export function prettyArguments(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}

/** One line that says what the call does, from its most telling argument. */
function gist(args: string): string {
  try {
    const parsed = JSON.parse(args) as Record<string, unknown>;
    for (const key of ['command', 'path', 'file', 'pattern', 'query', 'url', 'ref_id']) {
      const v = parsed?.[key];
      if (typeof v === 'string') return v.length > 80 ? `${v.slice(0, 79)}…` : v;
    }
  } catch {
    // not JSON: no gist
  }
  return '';
}

export function renderToolCard(call: ChatToolCallView, actions: ToolCardActions): HTMLElement {
  const approval = call.status === 'awaiting_approval' && call.approval;
  return h('div', { class: `tool-card status-${call.status}`, attrs: { 'data-call-id': call.callId, 'data-status': call.status } }, [
    h('div', { class: 'tool-head' }, [
      call.status === 'running' ? progressRing('Running') : null,
      h('span', { class: 'tool-name', text: call.name }),
      h('span', { class: 'tool-gist', text: gist(call.arguments) }),
      badge(STATUS_LABELS[call.status], `status-${call.status}`),
      call.truncated ? badge('truncated') : null,
      call.offloadRef ? badge('offloaded') : null,
    ]),
    details([h('span', { text: 'Arguments' })], [h('pre', { class: 'tool-args', text: prettyArguments(call.arguments) })], {
      open: actions.openArgs.has(call.callId),
      class: 'tool-args-details',
      onToggle: (open) => actions.onToggleArgs(call.callId, open),
    }),
    approval
      ? h('div', { class: `approval approval-${approval.kind}`, attrs: { role: 'group', 'aria-label': 'Approval needed' } }, [
          h('div', { class: 'approval-title', text: approval.title }),
          approval.detail ? h('pre', { class: 'approval-detail', text: approval.detail }) : null,
          h('div', { class: 'actions' }, [
            button('Approve', () => actions.onApproval(call.callId, true), { attrs: { 'data-approve': call.callId } }),
            approval.allowForSession
              ? button(`Allow ${approval.allowForSession} for this session`, () => actions.onApproval(call.callId, true, true), { appearance: 'secondary', attrs: { 'data-approve-session': call.callId } })
              : null,
            button('Deny', () => actions.onApproval(call.callId, false), { appearance: 'secondary', attrs: { 'data-deny': call.callId } }),
          ]),
        ])
      : null,
    call.resultPreview !== undefined
      ? h('div', { class: 'tool-result' }, [
          h('pre', { class: 'tool-result-text', text: call.resultPreview }),
          call.offloadRef
            ? button('Open full result', () => actions.onOpenResult(call.offloadRef as string), { appearance: 'secondary', attrs: { 'data-open-result': call.offloadRef } })
            : null,
        ])
      : null,
  ]);
}
