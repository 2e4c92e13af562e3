/**
 * The chat's slash commands on the host: real command files on disk, a real context session and
 * its tokenizer, the real attachment draft; the session's send is recorded.
 */
import { strict as assert } from 'assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { MESSAGE_OVERHEAD_TOKENS } from '../../../../src/core/accounting/messageTokens';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { windowFigures } from '../../../../src/core/accounting/windowFigures';
import { CommandCatalog } from '../../../../src/core/commands/commandCatalog';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { userMessage } from '../../../../src/core/model/factories';
import type { Message } from '../../../../src/core/model/message';
import { withSettings } from '../../../../src/core/settings';
import { AttachmentDraft, type DraftSession } from '../../../../src/host/chat/attachmentDraft';
import type { AttachmentIntentDeps } from '../../../../src/host/chat/attachmentIntents';
import { chatHandlers, type ChatIntentDeps } from '../../../../src/host/chat/chatIntents';
import type { ChatCommandItem } from '../../../../src/protocol/commands';
import { NodeCommandFileReader } from '../../../../src/node/slashCommands/commandFileReader';
import { tempStore } from '../../../support/tempStore';

describe('chat slash commands on the host: the list, the cost line and the send', function () {
  this.timeout(60_000);
  const disposers: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const d of disposers.splice(0)) await d();
  });

  async function setup() {
    const root = mkdtempSync(join(tmpdir(), 'tally-command-intents-'));
    disposers.push(() => rmSync(root, { recursive: true, force: true }));
    const workspace = join(root, 'ws');
    mkdirSync(join(workspace, '.tally', 'commands'), { recursive: true });
    writeFileSync(join(workspace, '.tally', 'commands', 'review.md'), '---\ndescription: Review a file\n---\nReview $1 carefully, then list what to fix. @src/app.ts');
    writeFileSync(join(workspace, '.tally', 'commands', 'leak.md'), 'Read @../secret.txt');
    const env = await tempStore();
    disposers.push(() => env.dispose());
    const settings = withSettings({ contextWindow: 32_000, maxOutputTokens: 2_000 });
    const sessionId = (await env.store.createSession({ title: 'commands' })).id;
    const contextSession = await ContextSession.open({ store: env.store, sessionId, settings, counter: getTokenCounter() });
    const files = new Map([['src/app.ts', 'export const app = 1;\n']]);
    const draft = new AttachmentDraft({
      read: async (target) => {
        if (target.kind !== 'file' || !files.has(target.path)) throw new Error('not in this workspace');
        return { info: { kind: 'file', label: target.path, path: target.path }, content: files.get(target.path)! };
      },
      complete: async () => [],
      dropped: async () => Promise.reject(new Error('no drops')),
    });
    const session: DraftSession & { canSend: boolean } = {
      sessionId, settings, messages: contextSession.messages, count: contextSession.count, store: env.store, canSend: true,
      figures: () => windowFigures(contextSession.measure()),
    };
    const restored: string[] = [];
    const costs: number[] = [];
    const attachments: AttachmentIntentDeps = {
      draft,
      session: async () => session,
      postComposer: (s, restore) => {
        if (restore !== undefined) restored.push(restore);
        const cost = draft.cost(s);
        if (cost) costs.push(cost.tokens);
      },
      postCompletions: () => undefined,
      postImageToDownscale: () => undefined,
      openText: async () => undefined,
      showRefused: () => undefined,
    };
    const sent: Array<{ text: string; attachments: readonly Message[]; source?: string }> = [];
    const lists: ChatCommandItem[][] = [];
    const deps: ChatIntentDeps = {
      sessions: { send: async (text, attached = [], source) => void sent.push({ text, attachments: attached, source }) } as ChatIntentDeps['sessions'],
      executeCommand: async () => undefined,
      sendState: async () => undefined,
      showEarlier: async () => undefined,
      attachments,
      commands: { catalog: new CommandCatalog(new NodeCommandFileReader(() => ({ workspace, userFolder: join(root, 'user') })), () => true), postList: (_id, items) => void lists.push(items) },
    };
    const tokens = (text: string) => contextSession.count(userMessage(text)) - MESSAGE_OVERHEAD_TOKENS;
    return { handlers: chatHandlers(deps), sent, lists, restored, costs, tokens };
  }

  it('the / list gives each command the tokens its text costs, counted as the cost line counts', async () => {
    const { handlers, lists, tokens } = await setup();
    await handlers.commandQuery({ type: 'commandQuery', queryId: 1, query: 're' });
    assert.deepEqual(lists[0].map((c) => c.name), ['review']);
    assert.equal(lists[0][0].tokens, tokens('Review  carefully, then list what to fix. @src/app.ts'));
    assert.equal(lists[0][0].attaches, 1);
  });

  it('the cost line counts the expanded text, not the /name typed', async () => {
    const { handlers, costs } = await setup();
    await handlers.draft({ type: 'draft', text: '/review src/app.ts' });
    await handlers.draft({ type: 'draft', text: 'Review src/app.ts carefully, then list what to fix. @src/app.ts' });
    await handlers.draft({ type: 'draft', text: ' /review src/app.ts' });
    assert.equal(costs[0], costs[1], 'the command costs what its text costs');
    assert.ok(costs[2] < costs[0], 'text that only looks like a command is counted as typed');
  });

  it('a send runs the command: its text, its file attached, its source recorded', async () => {
    const { handlers, sent } = await setup();
    await handlers.send({ type: 'send', text: '/review src/app.ts' });
    assert.equal(sent.length, 1);
    assert.equal(sent[0].text, 'Review src/app.ts carefully, then list what to fix. @src/app.ts');
    assert.equal(sent[0].source, '/review from .tally/commands/review.md');
    assert.deepEqual(sent[0].attachments.map((m) => m.meta?.attachment?.path), ['src/app.ts']);
    await handlers.send({ type: 'send', text: '/compact keep the plan' });
    assert.deepEqual(sent[1], { text: '/compact keep the plan', attachments: [], source: undefined });
  });

  it('a command that cannot run says why, sends nothing, and gives the typed text back', async () => {
    const { handlers, sent, restored } = await setup();
    await assert.rejects(async () => handlers.send({ type: 'send', text: '/nope now' }), /no command \/nope/);
    await assert.rejects(async () => handlers.send({ type: 'send', text: '/leak' }), /\/leak was not sent: @\.\.\/secret\.txt is outside the workspace/);
    assert.deepEqual(sent, []);
    assert.deepEqual(restored, ['/nope now', '/leak']);
  });
});
