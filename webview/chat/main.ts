/** The chat panel webview: renders the conversation the host sends, posts intents back. */
import { chatEntryKey, type ChatEntry, type ChatState, type ChatToHost, type HostToChat } from '../../src/protocol/chat';
import { applyChatEntriesPatch, streamedEntry, type HeldChatEntries } from '../../src/protocol/chatPatch';
import { readMeterCounting } from '../../src/protocol/meterCounting';
import { heldListOf } from '../../src/protocol/listPatch';
import { button, registerControls } from '../ui/controls';
import { h, replace } from '../ui/dom';
import { channel, onHostMessage } from '../ui/vscodeApi';
import { AttachmentComposer } from './attachments';
import { bothParts, CommandListComposer } from './commandList';
import { createComposer } from './composer';
import { EntryList } from './entries';
import { FollowOutput } from './followOutput';
import { renderMeter } from './meter';
import { renderToolbar } from './toolbar';
import { PlanModeToggle } from './planModeToggle';
import { decorateTurnActions } from './turnActions';

interface UiState {
  openNotices: string[];
  openArgs: string[];
  openThinking?: string[];
}

registerControls();
const host = channel<ChatToHost, UiState>();
const saved = host.loadUiState();
const openNotices = new Set(Array.isArray(saved.openNotices) ? saved.openNotices.filter((x) => typeof x === 'string') : []);
const openArgs = new Set(Array.isArray(saved.openArgs) ? saved.openArgs.filter((x) => typeof x === 'string') : []);
const openThinking = new Set(Array.isArray(saved.openThinking) ? saved.openThinking.filter((x) => typeof x === 'string') : []);
const persist = () => host.saveUiState({ openNotices: [...openNotices], openArgs: [...openArgs], openThinking: [...openThinking] });
const toggle = (set: Set<string>) => (id: string, open: boolean) => {
  if (open) set.add(id);
  else set.delete(id);
  persist();
};

let state: ChatState | undefined;
let toolbarSignature = '';
/** The entries as the host sent them; updates change this list. */
let held: HeldChatEntries = { order: [], byKey: new Map() };

const app = document.getElementById('app') ?? document.body;
const toolbarSlot = h('div', { class: 'toolbar-slot' });
const bannerSlot = h('div', { class: 'banner-slot' });
const meterSlot = h('div', { class: 'meter-slot' });
const entries = new EntryList({
  onApproval: (callId, approved, forSession) => host.post(forSession ? { type: 'approval', callId, approved, forSession } : { type: 'approval', callId, approved }),
  onOpenResult: (refId) => host.post({ type: 'openResult', refId }),
  openArgs,
  onToggleArgs: toggle(openArgs),
  openNotices,
  onToggleNotice: toggle(openNotices),
  openThinking,
  onToggleThinking: toggle(openThinking),
  onContinue: () => host.post({ type: 'send', text: 'Continue' }),
  onCopy: (code) => host.post({ type: 'copyCode', code }),
  onInsert: (code) => host.post({ type: 'insertCode', code }),
  onOpenLink: (url) => host.post({ type: 'openLink', url }),
  onRetry: () => host.post({ type: 'retry' }),
  onCompactAndContinue: () => host.post({ type: 'compactAndContinue' }),
  onSendAnyway: () => host.post({ type: 'sendAnyway' }),
  onSelectModel: () => host.post({ type: 'selectModel' }),
  onDiscardPending: () => host.post({ type: 'discardPending' }),
  onLoadEarlier: () => host.post({ type: 'showEarlier' }),
  onEditPlan: (messageId, text) => host.post({ type: 'editPlan', messageId, text }),
  onApprovePlan: (messageId, text) => host.post(text === undefined ? { type: 'approvePlan', messageId } : { type: 'approvePlan', messageId, text }),
  onDiscardPlan: (messageId) => host.post({ type: 'discardPlan', messageId }),
});
const scroller = h('div', { class: 'scroller' }, [entries.element]);
const emptyHint = h('div', { class: 'empty-hint' });
let emptySignature = '';

/** What an empty chat offers: with a model, what to ask; without one, choosing a model or watching the demo. */
function fillEmptyHint(hasModel: boolean): void {
  const signature = hasModel ? 'model' : 'none';
  if (signature === emptySignature) return;
  emptySignature = signature;
  replace(emptyHint, hasModel
    ? [h('p', { text: 'Ask Tally to read, change or run something in this workspace. Type / for commands (/compact compacts the context now).' })]
    : [
        h('p', { text: 'Choose a model to start: a VS Code model such as Copilot, Anthropic, OpenAI or a local server. Or watch a recorded session to see how Tally shows the context.' }),
        h('div', { class: 'empty-actions' }, [
          button('Select model', () => host.post({ type: 'selectModel' }), { attrs: { 'data-action': 'empty-select-model' } }),
          button('Open the demo', () => host.post({ type: 'openDemo' }), { appearance: 'secondary', attrs: { 'data-action': 'open-demo' } }),
        ]),
      ]);
}
const attachments = new AttachmentComposer((message) => host.post(message));
const commands = new CommandListComposer((message) => host.post(message));
const composer = createComposer(
  (text) => host.post({ type: 'send', text }),
  () => host.post({ type: 'cancel' }),
  bothParts(commands, attachments),
);
const planMode = new PlanModeToggle((on) => host.post({ type: 'setPlanMode', on }));
// The switch sits beside Send; the line saying plan mode is on, above the message box.
composer.element.querySelector('[data-action="send"]')?.before(planMode.button);
composer.element.prepend(planMode.line);
replace(app, [toolbarSlot, bannerSlot, meterSlot, scroller, composer.element]);
attachments.acceptDrops(app);
const follow = new FollowOutput(scroller, entries.element);
/** Approval cards already brought into view: each is brought once, when it appears. */
const revealedApprovals = new Set<string>();

function renderEntries(list: readonly ChatEntry[]): void {
  entries.render(list, state?.earlierUnloaded === true);
  if (list.length === 0) {
    fillEmptyHint(Boolean(state?.model));
    scroller.appendChild(emptyHint);
  }
  else emptyHint.remove();
  decorateTurnActions(entries.element, state?.turnFiles, state?.busy === true, state?.replay === true, {
    onRestoreFiles: (messageId) => host.post({ type: 'restoreFiles', messageId }),
    onRewind: (messageId) => host.post({ type: 'rewind', messageId }),
  });
  follow.afterRender();
  revealNewApprovals();
}

/** A card waiting for the user's answer always comes into view, its buttons included. */
function revealNewApprovals(): void {
  for (const card of Array.from(entries.element.querySelectorAll<HTMLElement>('.tool-card[data-status="awaiting_approval"]'))) {
    const callId = card.dataset.callId ?? '';
    if (revealedApprovals.has(callId)) continue;
    revealedApprovals.add(callId);
    follow.reveal(card.querySelector('.approval') ?? card);
  }
}

function hold(list: readonly ChatEntry[]): void {
  held = heldListOf(list, chatEntryKey);
}

function render(next: ChatState): void {
  state = next;
  const signature = JSON.stringify([next.model, next.sessions, next.sessionId, next.sessionTitle]);
  if (signature !== toolbarSignature) {
    toolbarSignature = signature;
    replace(toolbarSlot, [
      renderToolbar(next, {
        onSelectModel: () => host.post({ type: 'selectModel' }),
        onResume: (sessionId) => host.post({ type: 'resumeSession', sessionId }),
        onNewSession: () => host.post({ type: 'newSession' }),
        onSearchSessions: () => host.post({ type: 'searchSessions' }),
      }),
    ]);
  }
  replace(bannerSlot, next.banner ? [h('div', { class: 'banner', attrs: { role: 'alert' }, text: next.banner })] : []);
  // Without a model and with nothing said yet there is no window to measure: no "0/120K".
  const meter = next.model || next.entries.length > 0 ? next.meter : undefined;
  replace(meterSlot, [renderMeter(meter, () => host.post({ type: 'openInspector' }), next.model || next.entries.length > 0 ? readMeterCounting(next.counting) : undefined)]);
  composer.setBusy(next.busy);
  planMode.show(next.planMode === true);
  // A replay takes no messages: no mode to choose.
  planMode.button.hidden = next.replay === true;
  renderEntries(next.entries);
}

let deltaFrame: number | undefined;

/**
 * Appends streamed text (or thinking) to the entry it belongs to, creating the streaming entry when
 * needed; the answer's first text ends its thinking. The message's markdown is rendered again at
 * most once per frame, however many deltas arrive.
 */
function applyDelta(entryId: string, text: string, thinking: boolean): void {
  if (!state) state = { entries: [], busy: true, sessions: [] };
  // A new object, so the list redraws it; unchanged entries keep theirs.
  const at = state.entries.findIndex((e) => e.kind === 'assistant' && e.id === entryId);
  const entry = streamedEntry(at >= 0 ? state.entries[at] : undefined, entryId, text, thinking);
  if (at >= 0) state.entries[at] = entry;
  else state.entries.push(entry);
  held.byKey.set(chatEntryKey(entry), entry);
  if (at < 0) held.order.push(chatEntryKey(entry));
  deltaFrame ??= requestAnimationFrame(() => {
    deltaFrame = undefined;
    if (state) renderEntries(state.entries);
  });
}

onHostMessage<HostToChat>((message) => {
  if (message.type === 'state') {
    const opened = state?.sessionId !== message.state.sessionId || state === undefined;
    hold(message.state.entries);
    render(message.state);
    // A session just opened, resumed or reloaded opens at its end.
    if (opened) follow.restart();
  } else if (message.type === 'update' && (message.patch || message.state)) {
    const { entries, missing } = message.patch ? applyChatEntriesPatch(held, message.patch) : { entries: state?.entries ?? [], missing: [] };
    const header = message.state ?? state;
    // An update that does not fit what this webview holds: ask for the whole state again.
    if (missing.length > 0 || !header) host.post({ type: 'ready' });
    else render({ ...header, sessions: message.state?.sessions ?? state?.sessions ?? [], turnFiles: message.state ? (message.state.turnFiles ?? state?.turnFiles) : state?.turnFiles, entries });
  }
  else if (message.type === 'delta' && typeof message.text === 'string' && typeof message.entryId === 'string') applyDelta(message.entryId, message.text, message.thinking === true);
  else if (message.type === 'completions' && Array.isArray(message.items)) attachments.showCompletions(message.queryId, message.items);
  else if (message.type === 'composer' && Array.isArray(message.attachments)) attachments.showComposer(message.attachments, message.cost, message.restore);
  else if (message.type === 'imageToDownscale' && typeof message.data === 'string') attachments.downscale(message);
  else if (message.type === 'editText' && typeof message.text === 'string') composer.setText(message.text);
  else if (message.type === 'commandList' && Array.isArray(message.items)) commands.showCommands(message.queryId, message.items);
});

host.post({ type: 'ready' });
