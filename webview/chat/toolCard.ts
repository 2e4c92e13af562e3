import type { ChatSubagentView, ChatToolCallView } from '../../src/protocol/chat';
import { badge, button, progressRing } from '../ui/controls';
import { details, h, lazyDetails } from '../ui/dom';
import { drawSliced, SLICE_CHARS } from './longText';
import { lineCount, revealedNodes, revealHidden, revealPlain } from './revealHidden';
import { countOf } from '../../src/protocol/wording';
import { bytes } from '../ui/format';

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

const GIST_KEYS = ['command', 'path', 'file', 'pattern', 'query', 'url', 'ref_id', 'task'];

/** Arguments longer than this are not parsed for the card's line: only their start is looked at. */
const GIST_PARSE_CHARS = 64 * 1024;

/** The first string value of `key` in the start of a JSON text too long to parse whole. */
function leadingString(args: string, key: string): string | undefined {
  const start = args.slice(0, 4096);
  const match = new RegExp(`"${key}"\\s*:\\s*"((?:[^"\\\\]|\\\\.){0,400})`).exec(start);
  if (!match) return undefined;
  try {
    return JSON.parse(`"${match[1]}"`) as string;
  } catch {
    return match[1];
  }
}

/** One line that says what the call does, from its most telling argument. */
function gist(args: string): string {
  try {
    const parsed = (args.length > GIST_PARSE_CHARS ? Object.fromEntries(GIST_KEYS.map((k) => [k, leadingString(args, k)])) : JSON.parse(args)) as Record<string, unknown>;
    for (const key of GIST_KEYS) {
      const v = parsed?.[key];
      if (typeof v === 'string') {
        const shown = revealPlain(key === 'task' ? firstLine(v) : v).replace(/\n/g, ' ⏎ ');
        return shown.length > 80 ? `${shown.slice(0, 79)}…` : shown;
      }
    }
  } catch {
    // not JSON: no gist
  }
  return '';
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}

/** The arguments, pretty-printed when they fit one slice; longer ones as they came, a slice at a time. */
function argumentsText(call: ChatToolCallView): HTMLElement {
  const pre = h('pre', { class: 'tool-args' });
  if (call.arguments.length <= SLICE_CHARS) {
    pre.textContent = prettyArguments(call.arguments);
    return pre;
  }
  return drawSliced(call.arguments, { key: `args:${call.callId}`, kind: 'plain', into: pre, draw: (slice) => document.createTextNode(slice) });
}

/** The delegate tool starts a subagent: its card says so. */
const DELEGATE = 'delegate';

/** "working · 3 requests · read 12,400 tokens · last: read_file", or "waiting for a slot" before it starts. */
function subagentProgress(view: ChatSubagentView): string {
  if (view.phase === 'waiting') return 'waiting for a slot';
  const parts = [view.phase === 'ended' ? (view.outcome ?? 'ended') : 'working', countOf(view.requests, 'request'), `read ${countOf(view.read, 'token')}`];
  if (view.compactions) parts.push(countOf(view.compactions, 'compaction'));
  if (view.lastTool && view.phase !== 'ended') parts.push(`last: ${view.lastTool}`);
  return parts.join(' · ');
}

/** The agent and its progress; the task is the card's gist above it (said once), whole in the arguments. */
function subagentBlock(view: ChatSubagentView): HTMLElement {
  const failed = view.phase === 'ended' && view.outcome !== 'finished';
  return h('div', { class: `subagent subagent-${view.phase}${failed ? ' subagent-stopped' : ''}`, attrs: { 'data-subagent-phase': view.phase } }, [
    h('div', { class: 'subagent-who' }, [h('span', { class: 'subagent-agent', text: view.agent ?? 'subagent' })]),
    h('div', { class: 'subagent-progress', attrs: { role: 'status' }, title: 'Read: the input tokens of its requests, summed (what passed through its own window)', text: subagentProgress(view) }),
  ]);
}

export function renderToolCard(call: ChatToolCallView, actions: ToolCardActions): HTMLElement {
  // The todo list shows once, on its own card: each update is a line, not a card of its own.
  if (call.name === 'update_todos' && call.status === 'done') return todoUpdateLine(call);
  const approval = call.status === 'awaiting_approval' && call.approval;
  // A subagent's approval is answered by its own id, never the delegate call's.
  const answerId = (approval && approval.answerId) || call.callId;
  return h('div', { class: `tool-card status-${call.status}`, attrs: { 'data-call-id': call.callId, 'data-status': call.status } }, [
    h('div', { class: 'tool-head' }, [
      call.status === 'running' ? progressRing('Running') : null,
      h('span', { class: 'tool-name', text: call.name }),
      call.name === DELEGATE ? badge('subagent', 'subagent-badge') : null,
      h('span', { class: 'tool-gist', text: gist(call.arguments) }),
      badge(call.deniedBy ? 'denied by hook' : STATUS_LABELS[call.status], `status-${call.status}`),
      call.truncated ? badge('truncated') : null,
      call.offloadRef ? badge('offloaded') : null,
    ]),
    call.subagent ? subagentBlock(call.subagent) : null,
    lazyDetails([h('span', { text: 'Arguments' })], () => [argumentsText(call)], {
      open: actions.openArgs.has(call.callId),
      class: 'tool-args-details',
      onToggle: (open) => actions.onToggleArgs(call.callId, open),
    }),
    approval
      ? h('div', { class: `approval approval-${approval.kind}`, attrs: { role: 'group', 'aria-label': 'Approval needed' } }, [
          ...approvalBody(approval, answerId, actions),
          h('div', { class: 'actions' }, [
            button(approval.approveLabel ?? 'Approve', () => actions.onApproval(answerId, true), { attrs: { 'data-approve': answerId } }),
            approval.allowForSession
              ? button(`Allow ${approval.allowForSession.replace(/`([^`]*)`/g, '“$1”')} for this session`, () => actions.onApproval(answerId, true, true), { appearance: 'secondary', attrs: { 'data-approve-session': answerId } })
              : null,
            button('Deny', () => actions.onApproval(answerId, false), { appearance: 'secondary', attrs: { 'data-deny': answerId } }),
          ]),
        ])
      : null,
    call.deniedBy
      ? h('div', { class: 'tool-denial', attrs: { role: 'note', 'data-denied-by-hook': call.deniedBy.hook } }, [
          h('span', { text: 'Denied by hook ' }),
          h('code', { text: call.deniedBy.hook }),
          h('span', { text: `: ${call.deniedBy.reason}` }),
        ])
      : null,
    // A hook's denial is said above; the model's copy of it would say it twice.
    call.resultPreview !== undefined && !call.deniedBy
      ? h('div', { class: 'tool-result' }, [
          call.offloadRef ? storedLine(call, call.offloadRef, actions) : null,
          call.resultPreview ? h('pre', { class: 'tool-result-text', text: call.resultPreview }) : null,
        ])
      : null,
  ]);
}

/** "412 lines stored · Open": the whole output is kept and opens in an editor; below it, the part the model saw. */
function storedLine(call: ChatToolCallView, refId: string, actions: ToolCardActions): HTMLElement {
  const what = call.stored ? `${countOf(call.stored.lines, 'line')} stored` : 'Full output stored';
  return h('div', { class: 'stored-result', attrs: { 'data-stored': refId }, title: call.stored ? `${bytes(call.stored.bytes)}; the model saw the part below and can read the rest` : undefined }, [
    h('span', { class: 'stored-text', text: `${what} · ` }),
    h('button', { class: 'link-button', attrs: { type: 'button', 'data-open-result': refId, 'aria-label': `Open the full output (${what})` }, text: 'Open', on: { click: () => actions.onOpenResult(refId) } }),
  ]);
}

function revealedParts(text: string, findings: Set<string>): ReturnType<typeof revealedNodes> {
  const { parts, findings: found } = revealHidden(text);
  for (const f of found) findings.add(f);
  return revealedNodes(parts);
}

function revealed(tag: 'div' | 'pre', cls: string, text: string, findings: Set<string>): HTMLElement {
  return h(tag, { class: cls }, revealedParts(text, findings));
}

/**
 * A title such as "Run `ls -la` in src": what sits between its first and last backtick is code
 * (a command may itself hold backticks), drawn as code rather than with the backticks shown.
 */
function revealedTitle(title: string, findings: Set<string>): HTMLElement {
  const first = title.indexOf('`');
  const last = title.lastIndexOf('`');
  if (first < 0 || last <= first + 1) return revealed('div', 'approval-title', title, findings);
  const place = title.slice(last + 1).replace(/^ in \.$/, ' in the workspace folder');
  return h('div', { class: 'approval-title' }, [
    ...revealedParts(title.slice(0, first), findings),
    h('code', { class: 'approval-code' }, revealedParts(title.slice(first + 1, last), findings)),
    ...revealedParts(place, findings),
  ]);
}

/**
 * The title and the whole detail of an approval, with invisible and reordering characters shown
 * as markers and a warning line naming them: what the card shows is what will run. A command's
 * detail is never in a scroll box (the card grows); a diff keeps its scroll box.
 */
function approvalBody(approval: NonNullable<ChatToolCallView['approval']>, answerId: string, actions: ToolCardActions): HTMLElement[] {
  const findings = new Set<string>();
  const title = revealedTitle(approval.title, findings);
  const detail = approval.detail ? revealed('pre', `approval-detail${approval.kind === 'command' ? ' approval-full' : ''}`, approval.detail, findings) : undefined;
  const lines = approval.kind === 'command' && approval.detail ? lineCount(approval.detail.trimEnd()) : 1;
  const runs = approval.runs ? revealed('pre', 'approval-runs', approval.runs, findings) : undefined;
  const warnings = [...findings];
  if (lines > 1) warnings.unshift(`the command spans ${countOf(lines, 'line')}; all of them run`);
  const warning = warnings.length ? h('div', { class: 'approval-warning', attrs: { role: 'alert' }, text: `⚠ Look closely: ${warnings.join('; ')}.` }) : undefined;
  const noAllowance = approval.noAllowance ? h('div', { class: 'approval-note', text: `No "allow for this session" here: ${approval.noAllowance}.` }) : undefined;
  const sandbox = approval.sandbox ? sandboxLine(approval.sandbox, answerId, actions) : undefined;
  return [title, ...(warning ? [warning] : []), ...(detail ? [detail] : []), ...(runs ? [runs] : []), ...(sandbox ? [sandbox] : []), ...(noAllowance ? [noAllowance] : [])];
}

/**
 * Where the command runs: in the sandbox (what it may touch, the whole of it one click away) or
 * without one (why, marked like a warning). Its open state is kept with the arguments'.
 */
function sandboxLine(note: NonNullable<NonNullable<ChatToolCallView['approval']>['sandbox']>, answerId: string, actions: ToolCardActions): HTMLElement {
  const cls = `approval-sandbox ${note.sandboxed ? 'sandbox-on' : 'sandbox-off'}`;
  const attrs = { 'data-sandboxed': String(note.sandboxed) };
  const text = h('span', { class: 'sandbox-text', text: `${note.sandboxed ? '' : '⚠ '}${note.text}` });
  if (!note.detail) return h('div', { class: cls, attrs }, [text]);
  const key = `sandbox:${answerId}`;
  return details([text], [h('pre', { class: 'approval-sandbox-detail', text: note.detail })], { class: cls, attrs, open: actions.openArgs.has(key), onToggle: (open) => actions.onToggleArgs(key, open) });
}

/** One update of the todo list, where the agent made it: the list itself is on the todo card. */
function todoUpdateLine(call: ChatToolCallView): HTMLElement {
  const count = /^Todo list \((\d+ open of \d+)\)/.exec(call.resultPreview ?? '')?.[1];
  return h('div', { class: 'todo-update', attrs: { 'data-call-id': call.callId, 'data-status': call.status }, text: `Updated the todo list${count ? ` · ${count}` : ''}` });
}
