import type { InspectorState } from '../../src/protocol/inspector';
import { formatTokens, SPARED_DEFINITION, sparedWords, type InspectorSubagents, type InspectorSubagentSubject, type SessionTotalsView } from '../../src/protocol/inspectorSubagents';
import { countOf } from '../../src/protocol/wording';
import { h } from '../ui/dom';
import type { ItemLink } from './itemList';

const OPEN_LABEL = "Open subagent's window";

/** "Subagent explorer · task Find the parser · of Refactor session", with the way back. */
export function renderSubagentBanner(subject: InspectorSubagentSubject, onBack: () => void): HTMLElement {
  return h('div', { class: 'subagent-banner', attrs: { role: 'region', 'aria-label': "Subagent's window", 'data-subagent-banner': 'true' } }, [
    h('button', { class: 'link-button subagent-back', attrs: { type: 'button', 'data-action': 'subagent-back' }, text: `← Back to ${subject.parentTitle}`, on: { click: onBack } }),
    h('div', { class: 'subagent-title' }, [
      h('span', { class: 'subagent-kind', text: 'Subagent' }),
      h('strong', { class: 'subagent-name', text: subject.agent }),
      h('span', { class: 'subagent-sep', text: '·' }),
      h('span', { class: 'subagent-task-label', text: 'task' }),
      h('span', { class: 'subagent-task', title: subject.task, text: subject.task }),
      h('span', { class: 'subagent-sep', text: '·' }),
      h('span', { text: `of ${subject.parentTitle}` }),
    ]),
    h('p', { class: 'hint', text: "Its own window, read from its stored session: what it sent, what it compacted and stored. Read-only: pinning, compaction and opening parts in an editor are the main session's." }),
  ]);
}

function totalsText(t: SessionTotalsView): string {
  return `${countOf(t.requests, 'request')} · ${formatTokens(t.inputTokens)} input · ${formatTokens(t.outputTokens)} output tokens`;
}

/** The spared figure, the session's totals with the subagents' share, and each subagent with a link into its window. */
export function renderSubagents(subagents: InspectorSubagents, onOpen: (sessionId: string) => void): HTMLElement {
  const rows = subagents.list.map((s) =>
    h('li', { class: 'subagent-row', attrs: { 'data-subagent': s.sessionId } }, [
      h('div', { class: 'subagent-row-head' }, [
        h('strong', { text: s.agent }),
        h('span', { class: 'subagent-row-task', title: s.task, text: s.task }),
      ]),
      h('div', { class: 'subagent-row-figures' }, [
        h('span', { attrs: { 'data-subagent-read': s.sessionId }, text: `${countOf(s.requests, 'request')} · read ${countOf(s.read, 'token')}` }),
        h('span', { attrs: { 'data-subagent-back': s.sessionId }, text: s.cameBack === undefined ? ' · its report is not in the part of the conversation loaded' : ` · ${formatTokens(s.cameBack)} came back` }),
        h('button', { class: 'link-button', attrs: { type: 'button', 'data-open-subagent': s.sessionId }, text: OPEN_LABEL, on: { click: () => onOpen(s.sessionId) } }),
      ]),
    ]),
  );
  return h('div', { class: 'subagents' }, [
    h('p', { class: 'spared', title: SPARED_DEFINITION, attrs: { 'data-spared': 'true' } }, [h('strong', { text: sparedWords(subagents.spared) }), ' — spared the main window']),
    h('p', { class: 'session-totals', attrs: { 'data-session-totals': 'true' }, title: "Every request of this session and of its subagents (the provider's counts where it reported them, Tally's estimates otherwise)" }, [
      `Session total incl. subagents: ${totalsText(subagents.total)}`,
      h('span', { class: 'muted', text: ` (subagents' share: ${totalsText(subagents.share)})` }),
    ]),
    h('ul', { class: 'subagent-list' }, rows),
  ]);
}

/** Links on the items of the delegate calls and their results: the call's assistant message and the tool result. */
export function subagentItemLinks(state: InspectorState | undefined, onOpen: (sessionId: string) => void): Map<string, ItemLink> {
  const links = new Map<string, ItemLink>();
  for (const s of state?.subagents?.list ?? []) {
    const link = (key: string): ItemLink => ({ key, label: OPEN_LABEL, title: `${s.agent}: ${s.task}`, open: () => onOpen(s.sessionId) });
    if (s.resultMessageId) links.set(s.resultMessageId, link(s.sessionId));
    // An assistant message may make several delegate calls: its row links to the first one's window.
    if (s.callMessageId && !links.has(s.callMessageId)) links.set(s.callMessageId, link(s.sessionId));
  }
  return links;
}
