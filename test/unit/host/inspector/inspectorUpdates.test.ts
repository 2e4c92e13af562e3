import { strict as assert } from 'assert';
import type { BlobInfo } from '../../../../src/core/ports/blobStore';
import type { RequestItem } from '../../../../src/core/model/records';
import { noteDerived } from '../../../../src/core/model/listLineage';
import { INSPECTOR_PAGE } from '../../../../src/host/inspector/inspectorUpdates';
import type { InspectorChange } from '../../../../src/host/sessionState/sessionPatch';
import { InspectorHost, partsOf, WROTE } from '../../../support/inspectorMessages';
import type { HostToInspector, InspectorState, RequestView } from '../../../../src/protocol/inspector';
import { applyListPatch, heldListOf, type HeldList } from '../../../../src/protocol/listPatch';
import { requestItemKeys } from '../../../../src/protocol/requestItemKeys';

const item = (messageId: string, tokens: number, extra: Partial<RequestItem> = {}): RequestItem => ({ messageId, role: 'tool', kind: 'tool_result', tokens, badges: [], preview: `${messageId} output`, ...extra });
const turn = (requestIndex: number): RequestView => ({ requestIndex, createdAt: requestIndex, components: { system: 1, skills: 0, tools: 1, messages: requestIndex, toolResults: 0, summaries: 0 }, estimatedInputTokens: 100 + requestIndex });
const blob = (id: string): BlobInfo => ({ id, sessionId: 's1', toolName: 'run_command', byteSize: 10, lineCount: 1, sha256: 'a'.repeat(64), createdAt: 1 });

/** The webview's side: holds the lists and rebuilds the state from each message, as webview/inspector/main.ts does. */
class Webview {
  state?: InspectorState;
  /** Which history the webview holds (kept apart from the state, which the tests compare with the host's). */
  historySent?: number;
  private requests: HeldList<RequestView> = heldListOf<RequestView>([], (t) => `r${t.requestIndex}`);
  private items: HeldList<RequestItem> = heldListOf<RequestItem>([], (i) => i.messageId);
  private blobs: HeldList<BlobInfo> = heldListOf<BlobInfo>([], (b) => b.id);
  asksAgain = 0;

  receive(message: HostToInspector): void {
    if (message.type === 'state') {
      this.requests = heldListOf(message.state.requests, (t) => `r${t.requestIndex}`);
      this.items = heldListOf(message.state.current, (i) => i.messageId, requestItemKeys(message.state.current));
      this.blobs = heldListOf(message.state.blobs, (b) => b.id);
      const { historySent, ...state } = message.state;
      this.state = state;
      this.historySent = historySent;
    } else if (message.type === 'update') {
      const requests = applyListPatch(this.requests, message.requests, (t) => `r${t.requestIndex}`);
      const current = applyListPatch(this.items, message.current, (i) => i.messageId);
      const blobs = applyListPatch(this.blobs, message.blobs, (b) => b.id);
      const { historySent, ...state } = message.state;
      const compactions = message.compactions ?? (this.historySent === historySent ? this.state?.compactions : undefined);
      if (requests.missing.length || current.missing.length || blobs.missing.length || !compactions) this.asksAgain++;
      else {
        this.state = { ...state, requests: requests.list, current: current.list, blobs: blobs.list, blobTitles: message.blobTitles ? { ...this.state?.blobTitles, ...message.blobTitles } : this.state?.blobTitles, compactions };
        this.historySent = historySent;
      }
    }
  }
}

function state(requests: RequestView[], current: RequestItem[], blobs: BlobInfo[] = [], titles?: Record<string, string>): InspectorState {
  return { session: { id: 's1', title: 'one' }, requests, current, compactions: [], blobs, blobTitles: titles };
}

/** The message the host posts for `next`: the whole state first (or when asked), then updates for `change`. */
function message(host: InspectorHost, next: InspectorState, whole = false, change: InspectorChange = WROTE): HostToInspector {
  return host.message(next, whole ? 'whole' : change);
}

describe('inspector updates: only what changed travels, and the webview ends up with the host’s state', () => {
  it('a new request adds its figures and its items; nothing else is sent again', () => {
    const updates = new InspectorHost();
    const view = new Webview();
    const requests = Array.from({ length: 150 }, (_, i) => turn(i));
    const items = Array.from({ length: 2_000 }, (_, i) => item(`m${i}`, 10 + i));
    const first = message(updates, state(requests, items, [blob('r1')], { r1: 'run_command npm test' }));
    view.receive(first);
    const bytesWhole = JSON.stringify(first).length;

    const next = state([...requests, turn(150)], [...items, item('m2000', 7), item('m2001', 8)], [blob('r1'), blob('r2')], { r1: 'run_command npm test', r2: 'read_file a.ts' });
    const posted = message(updates, next);
    view.receive(posted);
    assert.equal(posted.type, 'update');
    assert.deepEqual(view.state, next);
    const bytes = JSON.stringify(posted).length;
    assert.ok(bytes < 2_000 && bytes * 50 < bytesWhole, `${bytes} bytes posted against ${bytesWhole} for the whole state`);
  });

  it('a long session\'s first state carries the newest page of requests and results; older pages come when asked for', () => {
    const updates = new InspectorHost();
    const view = new Webview();
    const requests = Array.from({ length: 4_500 }, (_, i) => turn(i));
    const blobs = Array.from({ length: 450 }, (_, i) => blob(`r${i}`));
    const titles = Object.fromEntries(blobs.map((b) => [b.id, `run_command test ${b.id}`]));
    const first = message(updates, state(requests, [item('m0', 1)], blobs, titles));
    view.receive(first);
    assert.equal(view.state?.requests.length, INSPECTOR_PAGE);
    assert.equal(view.state?.requests[0].requestIndex, 4_500 - INSPECTOR_PAGE, 'the newest requests');
    assert.equal(view.state?.earlierRequests, 4_500 - INSPECTOR_PAGE);
    assert.deepEqual(Object.keys(view.state?.blobTitles ?? {}), blobs.slice(-INSPECTOR_PAGE).map((b) => b.id), 'titles of the results sent only');
    assert.ok(JSON.stringify(first).length < 100_000, `${JSON.stringify(first).length} bytes`);

    // A request is made, then the webview asks for older requests: both arrive in one update.
    const more = [...requests, turn(4_500)];
    updates.showEarlier('requests');
    view.receive(message(updates, state(more, [item('m0', 1)], blobs, titles)));
    assert.deepEqual(view.state?.requests.map((t) => t.requestIndex), more.slice(4_500 - 2 * INSPECTOR_PAGE).map((t) => t.requestIndex));
    assert.equal(view.state?.earlierRequests, 4_500 - 2 * INSPECTOR_PAGE);
    updates.showEarlier('results');
    view.receive(message(updates, state(more, [item('m0', 1)], blobs, titles)));
    assert.equal(view.state?.blobs.length, 2 * INSPECTOR_PAGE);
    assert.equal(Object.keys(view.state?.blobTitles ?? {}).length, 2 * INSPECTOR_PAGE);
    assert.equal(view.asksAgain, 0);
  });

  it('the next request\'s items of a long conversation come as the prompt\'s parts and the newest page, the rest when asked for', () => {
    const updates = new InspectorHost();
    const view = new Webview();
    const prompt = [item('system:base', 900, { kind: 'system-section', section: 'system' }), item('tool:read_file', 120, { kind: 'tool-schema', section: 'tools' })];
    const conversation = Array.from({ length: 10_000 }, (_, i) => item(`m${i}`, i, { section: 'conversation' }));
    const all = [...prompt, ...conversation];
    const first = message(updates, state([turn(0)], all));
    view.receive(first);
    assert.deepEqual(view.state?.current.map((i) => i.messageId), [...prompt, ...conversation.slice(-INSPECTOR_PAGE)].map((i) => i.messageId));
    assert.deepEqual(view.state?.currentOmitted, { at: 2, count: 10_000 - INSPECTOR_PAGE });
    assert.ok(JSON.stringify(first).length < 100_000, `${JSON.stringify(first).length} bytes`);

    const grown = [...all, item('m10000', 5, { section: 'conversation' })];
    view.receive(message(updates, state([turn(0)], grown)));
    assert.equal(view.state?.current.at(-1)?.messageId, 'm10000');
    assert.equal(view.state?.currentOmitted?.count, 10_001 - INSPECTOR_PAGE);
    updates.showEarlier('current');
    view.receive(message(updates, state([turn(0)], grown)));
    assert.deepEqual(view.state, state([turn(0)], grown), 'every item, nothing left out');
    assert.equal(view.asksAgain, 0);
  });

  it('as a long conversation grows, its page of items slides on: the oldest go, the new come, and only those travel', () => {
    const updates = new InspectorHost();
    const view = new Webview();
    const prompt = [item('system:base', 900, { kind: 'system-section', section: 'system' })];
    let all = [...prompt, ...Array.from({ length: 5_000 }, (_, i) => item(`m${i}`, i, { section: 'conversation' }))];
    noteDerived(all, undefined, 0);
    view.receive(message(updates, state([turn(0)], all)));
    const sent: number[] = [];
    for (let step = 0; step < 20; step++) {
      // Every message appended, a repeated id now and then (it stays in the page, or leaves it whole).
      const added = [item(`n${step}`, step, { section: 'conversation' }), item(step % 7 === 0 ? `n${step}` : `r${step}`, step, { section: 'conversation' })];
      const grown = [...all, ...added];
      noteDerived(grown, all, all.length);
      all = grown;
      const posted = message(updates, state([turn(0)], all), false, { context: true });
      view.receive(posted);
      sent.push(JSON.stringify(posted).length);
      assert.deepEqual(view.state?.current.map((i) => i.messageId), [prompt[0].messageId, ...all.slice(-INSPECTOR_PAGE).map((i) => i.messageId)], `step ${step}`);
    }
    assert.equal(view.asksAgain, 0);
    assert.ok(Math.max(...sent) < 1_500, `${Math.max(...sent)} bytes for two items appended, not the page's keys again`);
  });

  it('items rebuilt with the same content, changed items, two items with one id, a compaction: the webview always matches', () => {
    const updates = new InspectorHost();
    const view = new Webview();
    let items = [item('system:base', 50, { kind: 'system-section' }), ...Array.from({ length: 30 }, (_, i) => item(`m${i}`, i + 1))];
    view.receive(message(updates, state([turn(0)], items)));
    const steps: Array<(list: RequestItem[]) => RequestItem[]> = [
      (list) => list.map((i) => ({ ...i })), // every object rebuilt, same content
      (list) => list.map((i) => (i.messageId === 'm3' ? { ...i, badges: ['pinned'] } : i)), // one pinned
      (list) => [...list, item('m5', 99)], // a second item with an id already listed
      (list) => [list[0], item('summary', 40, { kind: 'summary' }), ...list.slice(20)], // a compaction
      (list) => list.filter((i) => i.messageId !== 'm5'), // both items of that id gone
    ];
    let requests = [turn(0)];
    for (const [n, step] of steps.entries()) {
      items = step(items);
      requests = [...requests, turn(n + 1)];
      const next = state(requests, items);
      view.receive(message(updates, next));
      assert.deepEqual(view.state, next, `after step ${n}`);
    }
    assert.equal(view.asksAgain, 0);
  });

  it('a webview that missed an update asks for the whole state, and "ready" sends it whole', () => {
    const updates = new InspectorHost();
    const view = new Webview();
    view.receive(message(updates, state([turn(0)], [item('m0', 1)])));
    message(updates, state([turn(0), turn(1)], [item('m0', 1), item('m1', 2)])); // lost on the way
    view.receive(message(updates, state([turn(0), turn(1), turn(2)], [item('m0', 1), item('m1', 2), item('m2', 3)])));
    assert.equal(view.asksAgain, 1, 'the update refers to what it does not hold');
    const whole = message(updates, state([turn(0), turn(1), turn(2)], [item('m0', 1), item('m1', 2), item('m2', 3)]), true);
    assert.equal(whole.type, 'state');
    view.receive(whole);
    assert.deepEqual(view.state?.current.map((i) => i.messageId), ['m0', 'm1', 'm2']);
  });

  it('over 300 random changes (rebuilt, replaced, repeated ids, inserted, removed), the webview always holds the host’s lists', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const updates = new InspectorHost();
    const view = new Webview();
    let items = Array.from({ length: 40 }, (_, i) => item(`m${i}`, i));
    let requests = [turn(0)];
    let blobs = [blob('r0')];
    view.receive(message(updates, state(requests, items, blobs)));
    for (let step = 1; step <= 300; step++) {
      const at = Math.floor(random() * items.length);
      const pick = random();
      if (pick < 0.2) items = items.map((i) => ({ ...i }));
      else if (pick < 0.4) items = [...items.slice(0, at), { ...items[at], tokens: items[at].tokens + 1 }, ...items.slice(at + 1)];
      else if (pick < 0.55) items = [...items.slice(0, at), item(`m${Math.floor(random() * 60)}`, step), ...items.slice(at)]; // ids may repeat
      else if (pick < 0.7) items = items.filter((_, i) => i !== at);
      else items = [...items, item(`m${40 + step}`, step)];
      if (random() < 0.5) requests = [...requests, turn(step)];
      if (random() < 0.2) blobs = [...blobs, blob(`r${step}`)];
      const next = state(requests, items, blobs);
      view.receive(message(updates, next));
      assert.deepEqual(view.state, next, `step ${step}`);
    }
    assert.equal(view.asksAgain, 0);
  });

  it('a compaction that stores thousands of results sends each title once, not all of them at each update; a title renamed later is sent again', () => {
    const updates = new InspectorHost();
    const view = new Webview();
    let blobs: BlobInfo[] = [];
    const titles: Record<string, string> = {};
    view.receive(message(updates, state([turn(0)], [item('m0', 1)], blobs, titles)));
    const titleBytes: number[] = [];
    for (let write = 0; write < 40; write++) {
      const added = Array.from({ length: 100 }, (_, i) => blob(`r${write * 100 + i}`));
      const named: Record<string, string> = {};
      for (const b of added) named[b.id] = titles[b.id] = `run_command npm test -- --grep "case ${b.id}" · request #1`;
      blobs = [...blobs, ...added];
      const posted = message(updates, state([turn(0)], [item('m0', 1)], blobs, { ...titles }), false, { blobs: true, titles: named });
      view.receive(posted);
      titleBytes.push(JSON.stringify((posted as { blobTitles?: unknown }).blobTitles ?? {}).length);
    }
    assert.deepEqual(view.state?.blobTitles, titles, 'the webview holds every title');
    assert.ok(Math.max(...titleBytes) < 2 * titleBytes[0], `titles posted per write stay those of the 100 new results: ${titleBytes[0]} … ${titleBytes[titleBytes.length - 1]} bytes`);

    // A change that names nothing sends no title; a result named again (its call read back) sends that one.
    const quiet = message(updates, state([turn(0)], [item('m0', 1)], blobs, { ...titles }), false, { context: true });
    assert.equal((quiet as { blobTitles?: unknown }).blobTitles, undefined);
    titles.r7 = 'read_file src/app.ts · request #1';
    const renamed = message(updates, state([turn(0)], [item('m0', 1)], blobs, { ...titles }), false, { titles: { r7: titles.r7 } });
    assert.deepEqual((renamed as { blobTitles?: unknown }).blobTitles, { r7: 'read_file src/app.ts · request #1' });
    view.receive(renamed);
    assert.deepEqual(view.state?.blobTitles, titles);
  });

  it('a change the inspector does not show (a streamed delta, a card) posts nothing', () => {
    const updates = new InspectorHost();
    message(updates, state([turn(0)], [item('m0', 1)]));
    assert.equal(updates.updates.update(partsOf(state([turn(0)], [item('m0', 1)])), {}), undefined);
  });
});
