// The test bundle has its own copy of the core: it counts with the Node rank files, as the extension's does.
import '../../../src/node/usePlatform';
import { strict as assert } from 'assert';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { join } from 'path';
import * as vscode from 'vscode';
import type { SubagentProgress } from '../../../src/core/agent/events';
import { subagentSessions } from '../../../src/core/agent/subagents/sessionLink';
import { withSettings } from '../../../src/core/settings';
import { inspectorHandlers } from '../../../src/host/inspector/inspectorIntents';
import { buildInspectorState } from '../../../src/host/inspector/inspectorState';
import { InspectorSubject } from '../../../src/host/inspector/subagentSubject';
import { subagentSummaries } from '../../../src/host/inspector/subagentSummaries';
import type { ChatSubagentView, ChatToolCallView } from '../../../src/protocol/chat';
import type { HostToInspector } from '../../../src/protocol/inspector';
import { receiveWebviewMessage } from '../../../src/protocol/receive';
import { parseInspectorMessage } from '../../../src/protocol/validate';
import { nextApproval, withFakeModel } from '../harness/markerTool';
import { until } from './hostHelpers';

const folder = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
const AGENT_FILE = ['---', 'name: editor', 'description: Makes small edits the task describes.', 'tools: [read_file, edit_file]', '---', 'Edit only the files the task names.', ''].join('\n');

function call(id: string, name: string, args: Record<string, unknown>) {
  return { type: 'reply' as const, parts: [{ toolCall: { id, name, arguments: JSON.stringify(args) } }], usage: { input: 900, output: 15 } };
}

describe('Subagents in VS Code: a named agent edits after the user approves on its card, and the inspector opens its window', function () {
  this.timeout(120_000);
  const target = () => join(folder(), 'subagent-edit.txt');
  afterEach(() => {
    rmSync(join(folder(), '.tally'), { recursive: true, force: true });
    rmSync(target(), { force: true });
  });

  it('the approval card names the subagent, approving runs the edit, the card goes from progress to ended, and the inspector shows its requests', async () => {
    mkdirSync(join(folder(), '.tally', 'agents'), { recursive: true });
    writeFileSync(join(folder(), '.tally', 'agents', 'editor.md'), AGENT_FILE);
    writeFileSync(target(), 'alpha\nbeta\n');
    await withFakeModel(async ({ api, server, approvals }) => {
      await api.sessions.create('delegate an edit');
      server.enqueue(
        call('call_delegate', 'delegate', { task: 'TASK capitalise alpha in subagent-edit.txt', agent: 'editor' }),
        call('call_sub_edit', 'edit_file', { path: 'subagent-edit.txt', old_text: 'alpha', new_text: 'ALPHA' }),
        { type: 'reply', parts: [{ text: 'Report: alpha is ALPHA now in subagent-edit.txt:1.' }], usage: { input: 1_300, output: 12 } },
        { type: 'reply', parts: [{ text: 'The subagent made the edit.' }], usage: { input: 1_100, output: 8 } },
      );
      // The delegate card as the chat builds it, each time the subagent reports progress.
      const phases: string[] = [];
      let ended: ChatSubagentView | undefined;
      const card = async (): Promise<ChatToolCallView | undefined> => {
        const session = await api.sessions.current();
        const entries = session.state.chatEntries();
        return entries.flatMap((e) => (e.kind === 'assistant' ? e.toolCalls : [])).find((c) => c.callId === 'call_delegate');
      };
      const listening = api.sessions.onAgentEvent((event) => {
        if (event.type !== 'subagent') return;
        const view = api.sessions.shown?.state.live?.subagents.get('call_delegate');
        if (view && phases[phases.length - 1] !== view.phase) phases.push(view.phase);
        if ((event.progress as SubagentProgress).kind === 'ended') ended = view && { ...view };
      });
      try {
        const turn = api.sessions.send('Have the editor agent capitalise alpha.');
        const request = await nextApproval(approvals, 1);
        assert.equal(request.subagent?.name, 'editor');
        const asking = await card();
        assert.equal(asking?.status, 'awaiting_approval', 'the approval shows on the delegate card');
        assert.match(asking?.approval?.title ?? '', /^editor subagent: /, 'the card names the subagent');
        assert.equal(asking?.approval?.answerId, request.callId);
        assert.equal(asking?.subagent?.phase, 'working');
        assert.equal(readFileSync(target(), 'utf8'), 'alpha\nbeta\n', 'nothing is edited before the user approves');
        api.sessions.resolveApproval(asking!.approval!.answerId!, true);
        await turn;
        await until('the turn ended', async () => !(await api.sessions.current()).agent?.busy);
        await until('the edit reached the disk', () => readFileSync(target(), 'utf8') === 'ALPHA\nbeta\n');
      } finally {
        listening.dispose();
      }
      assert.deepEqual(phases, ['working', 'ended'], 'the card showed the subagent working, then ended');
      assert.equal(ended?.outcome, 'finished');
      assert.equal(ended?.requests, 2);

      // The inspector: the parent's subagent, what it read (the card's figure), and its window.
      const store = await api.sessions.store();
      const main = await api.sessions.current();
      const [child] = await subagentSessions(store, main.info.id);
      assert.equal(child.link.agent, 'editor');
      const summary = (await subagentSummaries(store, { sessionId: main.info.id, usage: main.state.records.usageFigures, messages: [main.state.records.heldMessages] }))!;
      assert.equal(summary.list[0].read, ended?.read, "the inspector's read is the card's");
      assert.equal(summary.list[0].read, 900 + 1_300);
      const subject = new InspectorSubject({ store: () => api.sessions.store(), settings: () => withSettings({}) });
      const posted: HostToInspector[] = [];
      const handlers = inspectorHandlers({
        sessions: subject.actions(api.sessions),
        subagents: { open: async (sessionId) => subject.open(await api.sessions.current(), sessionId), back: () => subject.back() },
        post: (m) => void posted.push(m),
        sendState: async () => undefined,
        showEarlier: async () => undefined,
        executeCommand: async () => undefined,
        showInformation: () => undefined,
      });
      const errors: string[] = [];
      const receive = (message: unknown) =>
        receiveWebviewMessage(message, { source: 'inspector', parse: parseInspectorMessage, log: { warn: (text: string) => void errors.push(text) }, handlers, onError: (e: unknown) => void errors.push(e instanceof Error ? e.stack ?? e.message : String(e)) });
      await receive({ type: 'openSubagent', sessionId: child.info.id });
      assert.deepEqual(errors, []);
      const shown = subject.shown(main);
      const state = buildInspectorState(shown);
      assert.equal(state.session?.id, child.info.id);
      assert.equal(state.requests.length, 2, "the subagent's two requests");
      assert.deepEqual(subject.header(main), { agent: 'editor', task: 'TASK capitalise alpha in subagent-edit.txt', parentSessionId: main.info.id, parentTitle: 'delegate an edit', depth: 1 });
      await receive({ type: 'selectRequest', requestIndex: 1 });
      const items = posted.find((m): m is Extract<HostToInspector, { type: 'requestItems' }> => m.type === 'requestItems')!;
      assert.ok(items.items.some((i) => i.toolName === 'edit_file' && i.role === 'tool'), "its request carries its own edit's result");
      assert.ok(items.items.some((i) => i.preview.includes('TASK capitalise alpha')));
      await receive({ type: 'closeSubagent' });
      assert.equal(subject.shown(main), main);
    });
  });
});
