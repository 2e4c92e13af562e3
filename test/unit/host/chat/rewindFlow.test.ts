import { strict as assert } from 'assert';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { CheckpointingWorkspace } from '../../../../src/core/checkpoints/checkpointingWorkspace';
import { TurnCheckpointRecorder } from '../../../../src/core/checkpoints/turnRecorder';
import type { RestoreItem } from '../../../../src/core/checkpoints/restore';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { contextMarks } from '../../../../src/core/context/contextMarks';
import { withSettings } from '../../../../src/core/settings';
import { ChatEntries } from '../../../../src/host/chat/chatEntries';
import { chatHandlers } from '../../../../src/host/chat/chatIntents';
import { readTurnFiles, restoreTurnFiles, rewindToMessage, turnFilesOf, type RewindPorts } from '../../../../src/host/chat/rewindFlow';
import { FileCheckpointStore } from '../../../../src/node/checkpoints/fileCheckpointStore';
import { nodeRestoreTarget } from '../../../../src/node/checkpoints/nodeRestoreTarget';
import { NodeWorkspace } from '../../../../src/node/tools/nodeWorkspace';
import { insideFolders } from '../../../../src/node/checkpoints/restoreConfinement';
import type { ChatEntry } from '../../../../src/protocol/chat';
import { tempStore } from '../../../support/tempStore';

/** A session with two turns that changed files, recorded as the agent would (real store, real folders). */
async function twoTurns(checkpointLimits?: ConstructorParameters<typeof FileCheckpointStore>[1]) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tally-rewind-flow-')));
  const workspace = join(root, 'workspace');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'app.ts'), 'port = 8080\n');
  const temp = await tempStore('tally-rewind-flow-store-');
  const { id } = await temp.store.createSession({ title: 'flow' });
  // The session's clock runs a minute ahead of the checkpoints' (as it can after a burst of messages, or with stored times from another machine):
  // what orders a turn's checkpoint after a restore must not depend on the two clocks agreeing.
  let tick = Date.UTC(2026, 0, 1, 9);
  const checkpointClock = () => ++tick;
  const session = await ContextSession.open({ store: temp.store, sessionId: id, settings: withSettings({ contextWindow: 32_000, maxOutputTokens: 4_000 }), counter: getTokenCounter('o200k_base'), now: () => checkpointClock() + 60_000 });
  // With limits of its own the store reads a clock that moves 1 ms a read: a bound runs out after as many files whatever the machine's load.
  let storeTick = tick;
  const files = checkpointLimits ? new FileCheckpointStore(join(root, 'checkpoints'), checkpointLimits, () => storeTick++) : new FileCheckpointStore(join(root, 'checkpoints'));
  const recorder = new TurnCheckpointRecorder(files, { now: checkpointClock });
  const ws = new CheckpointingWorkspace(new NodeWorkspace({ folders: [workspace], trusted: true }), recorder);
  const write = async (relative: string, text: string) => {
    const path = await ws.resolve(relative, { mustExist: false });
    await ws.writeFile(relative, path, text, existsSync(path.absolute) ? readFileSync(path.absolute, 'utf8') : undefined);
  };
  const first = await session.appendUser('change the port');
  recorder.begin(id, first.id, first.createdAt);
  await write('app.ts', 'port = 9090\n');
  await session.appendAssistant('Changed the port to 9090.');
  await recorder.end();
  const second = await session.appendUser('add a readme');
  recorder.begin(id, second.id, second.createdAt);
  await write('README.md', '# app\n');
  await session.appendAssistant('Added README.md.');
  await recorder.end();

  const asked: Array<{ message: string; detail: string; choices: string[] }> = [];
  const diffs: RestoreItem[][] = [];
  const composer: string[] = [];
  const said: string[] = [];
  let answer: string | undefined;
  let busy = false;
  let openFolders = [workspace];
  const ports: RewindPorts = {
    blocked: () => (busy ? 'Wait for the current turn to finish, or stop it, before rewinding or restoring files.' : undefined),
    session: async () => session,
    checkpoints: (sessionId) => recorder.checkpoints(sessionId),
    files,
    target: nodeRestoreTarget,
    unsaved: () => false,
    insideWorkspace: (absolute) => insideFolders(openFolders, absolute),
    showDiffs: async (items) => void diffs.push([...items]),
    closeDiffs: async () => void diffs.push([]),
    askModal: async (message, detail, choices) => {
      asked.push({ message, detail, choices });
      return answer;
    },
    inform: (m) => said.push(m),
    warn: (m) => said.push(m),
    editText: (text) => composer.push(text),
    changed: () => undefined,
    rewound: () => void said.push('rewound'),
  };
  return {
    root, workspace, temp, session, recorder, ports, write, asked, diffs, composer, said, first, second,
    answer: (choice: string | undefined) => (answer = choice),
    setBusy: (value: boolean) => (busy = value),
    openFolders: (folders: string[]) => (openFolders = folders),
    /** The chat's entries as a reopened chat folds them from the store, marked as the session's working context holds them. */
    chat: async (): Promise<ChatEntry[]> => {
      const entries = new ChatEntries();
      entries.reset(await temp.store.loadTranscript(id), await temp.store.listCompactionEvents(id), []);
      entries.markContext(contextMarks(session.messages));
      return entries.entries();
    },
    async dispose() {
      await temp.dispose();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

const headlines = (entries: ChatEntry[]) => entries.flatMap((e) => (e.kind === 'compaction' && e.headline ? [e.headline] : []));

describe('restore and rewind from the chat (host flow)', function () {
  this.timeout(60_000);

  it('the turns\' files are read without the session\'s history when no turn changed files (the chat\'s first state waits for them)', async () => {
    const t = await twoTurns();
    try {
      let historyReads = 0;
      const history = async () => (historyReads++, t.temp.store.listCompactionEvents(t.session.sessionId));
      const other = await t.temp.store.createSession({ title: 'no file changes' });
      assert.deepEqual(await readTurnFiles(t.recorder.checkpoints(other.id), history), [], 'no turn offers files');
      assert.equal(historyReads, 0, 'the history was not read');
      const files = await readTurnFiles(t.recorder.checkpoints(t.session.sessionId), history);
      assert.deepEqual(files.map((f) => [f.messageId, f.files]), [[t.first.id, 1], [t.second.id, 1]], 'each turn that changed files offers them');
      assert.equal(historyReads, 1, 'read once when turns changed files');
    } finally {
      await t.dispose();
    }
  });

  it('Restore files shows a diff per file and a confirmation, puts back the agent\'s changes, leaves a file the user changed since unless asked, and the chat says what happened', async () => {
    const t = await twoTurns();
    try {
      assert.deepEqual(turnFilesOf(await t.recorder.checkpoints(t.session.sessionId)).map((f) => [f.messageId, f.files]), [[t.first.id, 1], [t.second.id, 1]], 'each turn offers its files');
      writeFileSync(join(t.workspace, 'README.md'), '# app, edited by the user\n');
      t.answer('Restore Files');
      const outcome = await restoreTurnFiles(t.ports, t.first.id);
      assert.deepEqual(t.diffs[0].map((i) => i.relative), ['app.ts', 'README.md'].sort((a, b) => a.localeCompare(b)), 'a diff per file before the question');
      assert.deepEqual(t.diffs[1], [], 'the diffs are closed once answered');
      assert.equal(t.asked[0].message, 'Restore 1 file to before “change the port”?');
      assert.deepEqual(t.asked[0].choices, ['Restore Files', 'Restore All 2 Files']);
      assert.match(t.asked[0].detail, /Written back: app\.ts/);
      assert.match(t.asked[0].detail, /⚠ Left as they are, because not only the agent changed them: README\.md \(changed since the agent changed it; restoring deletes it\)\. "Restore All 2 Files" puts them back too, and those changes are lost\./);
      assert.deepEqual(outcome?.restored, ['app.ts']);
      assert.equal(readFileSync(join(t.workspace, 'app.ts'), 'utf8'), 'port = 8080\n');
      assert.equal(readFileSync(join(t.workspace, 'README.md'), 'utf8'), '# app, edited by the user\n', "the user's edit stays");
      assert.equal(t.session.messages.length, 4, 'the conversation is unchanged');
      assert.deepEqual(headlines(await t.chat()), ['Restored 1 file to before “change the port”']);

      // Asked for, the user's file goes too.
      t.answer('Restore It Anyway');
      const again = await restoreTurnFiles(t.ports, t.first.id);
      assert.equal(t.asked[1].message, 'Restore files to before “change the port”? Not only the agent changed the file.');
      assert.deepEqual(t.asked[1].choices, ['Restore It Anyway']);
      assert.deepEqual(again?.restored, ['README.md']);
      assert.equal(existsSync(join(t.workspace, 'README.md')), false);
    } finally {
      await t.dispose();
    }
  });

  it('Rewind and Restore Files takes the conversation and the files back and puts the message in the composer; the set-aside count is one number everywhere', async () => {
    const t = await twoTurns();
    try {
      t.answer('Rewind and Restore Files');
      const record = await rewindToMessage(t.ports, t.second.id);
      assert.equal(t.asked[0].message, 'Rewind to before “add a readme”?');
      assert.deepEqual(t.asked[0].choices, ['Rewind', 'Rewind and Restore Files']);
      const said = /(\d+) messages are set aside/.exec(t.asked[0].detail);
      assert.ok(said, t.asked[0].detail);
      assert.equal(existsSync(join(t.workspace, 'README.md')), false, 'the second turn\'s file is gone');
      assert.equal(readFileSync(join(t.workspace, 'app.ts'), 'utf8'), 'port = 9090\n', 'the first turn\'s change stays');
      assert.deepEqual(t.session.messages.map((m) => m.content), ['change the port', 'Changed the port to 9090.']);
      assert.deepEqual(t.composer, ['add a readme']);
      assert.ok(t.said.includes('rewound'), 'the last turn\'s error and Retry are dropped');
      assert.deepEqual(record?.step, { kind: 'rewind', messageId: t.second.id, checkpointId: record?.step?.checkpointId, files: ['README.md'], setAside: Number(said[1]) });
      const chat = await t.chat();
      const marked = chat.flatMap((e) => (e.kind === 'user' || e.kind === 'assistant' ? [[e.text, e.setAside === true]] : []));
      assert.deepEqual(marked, [['change the port', false], ['Changed the port to 9090.', false], ['add a readme', true], ['Added README.md.', true]], 'the chat marks what the rewind set aside');
      const [headline] = headlines(chat);
      assert.equal(headline, `Rewound to before “add a readme” · ${said[1]} messages set aside · 1 file restored`);
      assert.equal(Number(said[1]), record!.messagesBefore - record!.messagesAfter, 'the confirmation, the notice and the record say the same number');
      assert.equal(Number(said[1]), record!.step?.setAside);
    } finally {
      await t.dispose();
    }
  });

  it('nothing is asked or changed while a turn runs, or when the user cancels', async () => {
    const t = await twoTurns();
    try {
      t.setBusy(true);
      await assert.rejects(rewindToMessage(t.ports, t.first.id), /Wait for the current turn to finish/);
      await assert.rejects(restoreTurnFiles(t.ports, t.first.id), /Wait for the current turn to finish/);
      assert.equal(t.asked.length, 0);
      t.setBusy(false);
      t.answer(undefined);
      assert.equal(await rewindToMessage(t.ports, t.first.id), undefined);
      assert.equal(await restoreTurnFiles(t.ports, t.first.id), undefined);
      assert.equal(t.session.messages.length, 4);
      assert.equal(readFileSync(join(t.workspace, 'app.ts'), 'utf8'), 'port = 9090\n');
      assert.deepEqual(headlines(await t.chat()), []);
      assert.deepEqual(t.composer, []);
    } finally {
      await t.dispose();
    }
  });

  it('never writes outside the workspace open now: a session from another workspace, or a folder that became a link', async () => {
    const t = await twoTurns();
    const outside = join(t.root, 'elsewhere');
    try {
      mkdirSync(outside);
      t.openFolders([outside]);
      t.answer('Restore Files');
      assert.equal(await restoreTurnFiles(t.ports, t.first.id), undefined);
      assert.equal(t.asked.length, 0, 'nothing to confirm');
      assert.match(t.said[0], /None of the files can be restored: app\.ts \(it is outside the workspace folders open now\), README\.md \(it is outside/);
      assert.equal(readFileSync(join(t.workspace, 'app.ts'), 'utf8'), 'port = 9090\n', 'nothing written');

      // The workspace's own folder of a turn's file became a link leading out.
      t.openFolders([t.workspace]);
      mkdirSync(join(t.workspace, 'docs'));
      const path = join(t.workspace, 'docs');
      writeFileSync(join(path, 'guide.md'), 'v0\n');
      t.recorder.begin(t.session.sessionId, t.second.id);
      const ws = new CheckpointingWorkspace(new NodeWorkspace({ folders: [t.workspace], trusted: true }), t.recorder);
      await ws.writeFile('docs/guide.md', await ws.resolve('docs/guide.md', { mustExist: true }), 'v1\n', 'v0\n');
      await t.recorder.end();
      rmSync(path, { recursive: true });
      symlinkSync(outside, path);
      writeFileSync(join(outside, 'guide.md'), 'outside\n');
      const outcome = await restoreTurnFiles(t.ports, t.second.id);
      assert.equal(readFileSync(join(outside, 'guide.md'), 'utf8'), 'outside\n', 'the file behind the link is untouched');
      assert.match(t.asked[t.asked.length - 1].detail, /Cannot be restored: docs\/guide\.md \(it is outside the workspace folders open now\)/);
      assert.deepEqual(outcome?.unrestorable, ['docs/guide.md']);
      assert.equal(existsSync(join(t.workspace, 'README.md')), false, 'the files inside are still restored');
    } finally {
      await t.dispose();
    }
  });

  it('after a restore the turns say their files were restored (and when), not Restore files again, until a turn changes files', async () => {
    const t = await twoTurns();
    try {
      const turnFiles = async () => turnFilesOf(await t.recorder.checkpoints(t.session.sessionId), await t.temp.store.listCompactionEvents(t.session.sessionId));
      assert.deepEqual((await turnFiles()).map((f) => f.restoredAt), [undefined, undefined], 'nothing restored yet');
      t.answer('Restore Files');
      await restoreTurnFiles(t.ports, t.second.id);
      const [step] = (await t.temp.store.listCompactionEvents(t.session.sessionId)).filter((e) => e.step?.kind === 'restore');
      assert.deepEqual((await turnFiles()).map((f) => [f.messageId, f.restoredAt]), [[t.first.id, undefined], [t.second.id, step.startedAt]], 'the restored turn says when; the earlier one still offers its restore');

      await restoreTurnFiles(t.ports, t.first.id);
      const restores = (await t.temp.store.listCompactionEvents(t.session.sessionId)).filter((e) => e.step?.kind === 'restore');
      assert.deepEqual((await turnFiles()).map((f) => f.restoredAt), [restores[1].startedAt, restores[1].startedAt], 'restoring an earlier turn puts back the later one too');

      const third = await t.session.appendUser('change the port again');
      t.recorder.begin(t.session.sessionId, third.id, third.createdAt);
      await t.write('app.ts', 'port = 7070\n');
      await t.recorder.end();
      assert.deepEqual((await turnFiles()).map((f) => f.restoredAt), [undefined, undefined, undefined], 'once a turn changes files, each turn offers its restore again');
    } finally {
      await t.dispose();
    }
  });

  it('a rewind that restored files marks the turns restored, one that did not leaves them', async () => {
    const t = await twoTurns();
    try {
      const turnFiles = async () => turnFilesOf(await t.recorder.checkpoints(t.session.sessionId), await t.temp.store.listCompactionEvents(t.session.sessionId));
      let seenAtChange: Promise<boolean> = Promise.resolve(false);
      t.ports.changed = () => void (seenAtChange = t.temp.store.listCompactionEvents(t.session.sessionId).then((h) => h.some((e) => e.step?.kind === 'rewind' && e.step.files?.length)));
      t.answer('Rewind');
      await rewindToMessage(t.ports, t.second.id);
      assert.deepEqual((await turnFiles()).map((f) => f.restoredAt), [undefined, undefined]);
      t.answer('Rewind and Restore Files');
      const record = await rewindToMessage(t.ports, t.first.id);
      assert.deepEqual((await turnFiles()).map((f) => f.restoredAt), [record?.startedAt, record?.startedAt]);
      assert.ok(await seenAtChange, 'the chat is told to read the turns again once the step is stored');
    } finally {
      await t.dispose();
    }
  });

  it('a turn says what was not recorded in one line: the first note, and how many more Restore files shows', () => {
    const checkpoint = (id: string, problems: string[]) => ({ id, sessionId: 's', userMessageId: 'u1', createdAt: 1, files: [], problems });
    const [one] = turnFilesOf([checkpoint('k1', ['Not recorded, so not restorable: changes to dist/ (git ignores them, or they are installed packages).'])]);
    assert.equal(one.problem, 'Not recorded, so not restorable: changes to dist/ (git ignores them, or they are installed packages).');
    const [three] = turnFilesOf([checkpoint('k1', ['first note.', 'second note.']), checkpoint('k2', ['second note.', 'third note.'])]);
    assert.equal(three.problem, 'first note. (and 2 more notes in Restore files)');
  });

  it('what a command had no time to record is said on its turn and in the Restore confirmation', async () => {
    const t = await twoTurns({ captureBudgetMs: 20, listBudgetMs: 600_000, watchedListBudgetMs: 600_000, useWatcher: false });
    try {
      const longAgo = new Date('2020-01-01T00:00:00Z');
      mkdirSync(join(t.workspace, 'src'));
      for (let i = 0; i < 200; i++) {
        writeFileSync(join(t.workspace, 'src', `m${i}.ts`), `export const m${i} = ${i};\n`);
        utimesSync(join(t.workspace, 'src', `m${i}.ts`), longAgo, longAgo);
      }
      const third = await t.session.appendUser('run the formatter');
      t.recorder.begin(t.session.sessionId, third.id, third.createdAt);
      await t.recorder.aroundCommand([t.workspace], async () => writeFileSync(join(t.workspace, 'app.ts'), 'port = 9091\n'));
      await t.session.appendAssistant('Formatted.');
      await t.recorder.end();
      const turn = turnFilesOf(await t.recorder.checkpoints(t.session.sessionId)).find((f) => f.messageId === third.id);
      assert.match(turn?.problem ?? '', /^Files this command changes may not all be restorable: the time to record them before it ran out \(\d+ files not recorded\)\.$/, 'the turn says it');
      t.answer(undefined);
      await restoreTurnFiles(t.ports, third.id);
      assert.match(t.asked[0].detail, /⚠ Files this command changes may not all be restorable: the time to record them before it ran out \(\d+ files not recorded\)\./, 'the confirmation says it');
    } finally {
      await t.dispose();
    }
  });

  it('the chat\'s intents reach the flow with the id alone', async () => {
    const calls: string[] = [];
    const handlers = chatHandlers({
      sessions: {} as never,
      executeCommand: async () => undefined,
      sendState: async () => undefined,
      showEarlier: async () => undefined,
      rewind: { restoreFiles: async (id) => calls.push(`restore ${id}`), rewind: async (id) => calls.push(`rewind ${id}`) },
    });
    await handlers.restoreFiles({ type: 'restoreFiles', messageId: 'm1' });
    await handlers.rewind({ type: 'rewind', messageId: 'm2' });
    assert.deepEqual(calls, ['restore m1', 'rewind m2']);
  });
});
