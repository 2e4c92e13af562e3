import { strict as assert } from 'assert';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as vscode from 'vscode';
import { FakeOpenAIServer } from '../../fakes/openaiServer';
import { pngFile } from '../../support/imageFiles';
import { nextApproval, recordApprovals } from '../harness/markerTool';
import { api, forgetScriptedModel, until, useScriptedModel } from './liveSession';

type Body = { messages: Array<{ role: string; content: unknown; tool_calls?: unknown[] }> };
const STEPS = ['Look at the workspace', 'Change what the task needs', 'Check the change'];
const todos = (done: number) => STEPS.map((text, i) => ({ text, status: i < done ? 'done' : i === done ? 'in_progress' : 'pending' }));
const call = (id: string, name: string, args: unknown) => ({ type: 'reply' as const, parts: [{ toolCall: { id, name, arguments: JSON.stringify(args) } }] });

/** The todo list, a web page and an image, each used in a live session with a scripted model, as a user would. */
describe('The todo list, a fetched page and an image in a live session', () => {
  let server: FakeOpenAIServer;
  beforeEach(async () => {
    server = await new FakeOpenAIServer().start();
  });
  afterEach(async () => {
    await forgetScriptedModel();
    await vscode.workspace.getConfiguration('tally').update('models.images', undefined, vscode.ConfigurationTarget.Global);
    await server.close();
  });

  it('the todo card follows each update_todos call and ends with every step done', async () => {
    const { sessions } = await api();
    await useScriptedModel(server.url);
    await sessions.create('todo list');
    server.enqueue(call('t0', 'update_todos', { todos: todos(0) }), call('t1', 'update_todos', { todos: todos(1) }), call('t2', 'update_todos', { todos: todos(3) }), { type: 'reply', parts: [{ text: 'All three steps are done.' }] });
    await sessions.send('keep a todo list while you work');
    const session = await sessions.current();
    const card = session.state.chatState().entries.find((e) => e.kind === 'todos');
    assert.ok(card && card.kind === 'todos', 'the chat shows the todo card');
    assert.deepEqual(card.items.map((i) => [i.text, i.status]), STEPS.map((s) => [s, 'done']));
    assert.equal(card.open, 0);
    // The model read its own list back in each result: the second request carries the first list.
    assert.match(JSON.stringify(server.requests[1].body), /Look at the workspace/);
  });

  it('fetch_url asks for the local site, then hands the model the page as readable text without its scripts', async () => {
    const page = '<html><head><title>Release notes</title><script>window.secret = "do-not-read"</script></head><body><nav>Home · Blog</nav><main><h1>Version 2.0</h1><p>The parser now keeps comments.</p></main></body></html>';
    const site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/notes`;
    const { sessions } = await api();
    const approvals = recordApprovals(await api());
    try {
      await useScriptedModel(server.url);
      await sessions.create('fetch a page');
      server.enqueue(call('f0', 'fetch_url', { url }), { type: 'reply', parts: [{ text: 'Version 2.0 keeps comments.' }] });
      const turn = sessions.send(`fetch ${url}`);
      // The site first, then its local address: each asked for on its own card.
      const site = await nextApproval(approvals.requests, 1);
      assert.equal(site.title, `Fetch ${url}`);
      sessions.resolveApproval(site.callId, true);
      const local = await nextApproval(approvals.requests, 2);
      assert.match(local.title, /resolves to 127\.0\.0\.1, a loopback address/);
      sessions.resolveApproval(local.callId, true);
      await turn;
      const body = server.requests[1]?.body as Body | undefined;
      const result = JSON.stringify(body?.messages.find((m) => m.role === 'tool')?.content ?? '');
      assert.match(result, /Release notes/);
      assert.match(result, /The parser now keeps comments\./);
      assert.doesNotMatch(result, /do-not-read/, 'the page\'s script is not read');
    } finally {
      approvals.dispose();
      await new Promise<void>((resolve) => site.close(() => resolve()));
    }
  });

  it('an image is refused for a model that takes none, and sent as an image part, at the cost its chip showed, once the user says the model takes images', async () => {
    const { sessions, chat, attachments } = await api();
    await useScriptedModel(server.url);
    const session = await sessions.create('an image');
    const image = { kind: 'image', mediaType: 'image/png', data: Buffer.from(pngFile(64, 48)).toString('base64'), name: 'shot.png' };
    await chat.receive({ type: 'attach', target: image });
    await chat.receive({ type: 'send', text: 'What is in this picture?' });
    assert.equal(server.requests.length, 0, 'nothing was sent to a model that takes no images');
    const refusal = (await sessions.current()).state.chatState().entries.find((e) => e.kind === 'notice' && e.level === 'error');
    assert.match(JSON.stringify(refusal ?? {}), /takes no images/);

    await vscode.workspace.getConfiguration('tally').update('models.images', { 'scripted-model': true }, vscode.ConfigurationTarget.Global);
    await until('the model takes images', async () => Boolean((await sessions.current()).agent));
    await sessions.create('an image again');
    await chat.receive({ type: 'attach', target: image });
    const [chip] = attachments.draft.views(await attachments.session());
    assert.ok(chip && chip.kind === 'image' && chip.tokens! > 0 && !chip.error, JSON.stringify(chip));
    server.enqueue({ type: 'reply', parts: [{ text: 'A red rectangle.' }] });
    await chat.receive({ type: 'send', text: 'What is in this picture?' });
    const parts = (server.requests[0].body as Body).messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Array<{ type: string; image_url?: { url: string } }>) : []));
    assert.ok(parts.some((p) => p.type === 'image_url' && p.image_url!.url.startsWith('data:image/png;base64,')), 'the request carries the image');
    const store = await sessions.store();
    const current = (await sessions.current()).info.id;
    await until('the request is stored', async () => (await store.listRequestUsage(current)).length >= 1);
    const [usage] = await store.listRequestUsage(current);
    const item = usage.items.find((i) => i.kind === 'image');
    assert.equal(item?.tokens, chip.tokens, `the request's image item costs what its chip said: ${JSON.stringify(usage.items.filter((i) => i.kind === 'image'))} against ${JSON.stringify(chip)}`);
    assert.notEqual(current, session.info.id);
  });
});
