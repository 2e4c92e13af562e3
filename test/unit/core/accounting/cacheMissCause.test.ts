/** Why a request read less from the prompt cache than the one before: the first item its prefix breaks at. */
import { strict as assert } from 'assert';
import { cacheMissCause } from '../../../../src/core/accounting/cacheMissCause';
import type { RequestItem, RequestUsageRecord } from '../../../../src/core/model/records';

type Request = Parameters<typeof cacheMissCause>[0];

function prompt(id: string, kind: string, section: RequestItem['section'], tokens: number, text: string, extra: Partial<RequestItem> = {}): RequestItem {
  return { messageId: id, role: 'system', kind, tokens, badges: [], preview: text.slice(0, 20), section, textHash: `h-${text}`, ...extra };
}

function message(id: string, role: string, tokens: number, extra: Partial<RequestItem> = {}): RequestItem {
  return { messageId: id, role, kind: role === 'tool' ? 'tool_result' : role, tokens, badges: [], preview: `${id} text`, section: 'conversation', ...extra };
}

const system = prompt('system:base', 'system-section', 'system', 2_000, 'You are Tally.');
const agents = prompt('agents:AGENTS.md', 'agents-md', 'system', 1_500, 'Use pnpm.', { path: 'AGENTS.md' });
const readTool = prompt('tool:read_file', 'tool-schema', 'tools', 300, 'read_file schema', { role: 'tool' });
const runTool = prompt('tool:run_command', 'tool-schema', 'tools', 400, 'run_command schema', { role: 'tool' });
const conversation = [message('m1', 'user', 100), message('m2', 'assistant', 200), message('m3', 'tool', 5_000, { toolName: 'read_file' }), message('m4', 'assistant', 150)];
const framing = prompt('framing:messages', 'framing', 'conversation', 40, 'framing');

function request(index: number, items: RequestItem[], cacheRead: number | undefined, extra: Partial<RequestUsageRecord> = {}): Request {
  const input = items.reduce((sum, item) => sum + item.tokens, 0);
  return { requestIndex: index, estimatedInputTokens: input, reportedInputTokens: input, cacheReadTokens: cacheRead, items, ...extra };
}

const previous = request(13, [system, agents, readTool, runTool, ...conversation, framing], 9_000);
/** Everything the previous request carried after the first two system items: what a change there loses. */
const afterAgents = 300 + 400 + 100 + 200 + 5_000 + 150;

describe('why a request missed the cache', () => {
  it('names AGENTS.md when its text changed, and counts the tokens sent before that follow it', () => {
    const edited = prompt('agents:AGENTS.md', 'agents-md', 'system', 1_500, 'Use npm.', { path: 'AGENTS.md' });
    const next = request(14, [system, edited, readTool, runTool, ...conversation, message('m5', 'user', 50), framing], 2_000);
    const miss = cacheMissCause(previous, next);
    assert.deepEqual([miss?.kind, miss?.cause, miss?.itemId, miss?.position, miss?.uncachedTokens, miss?.previousRequest], ['agents-md', 'AGENTS.md changed', 'agents:AGENTS.md', 1, afterAgents, 13]);
    assert.ok(miss!.share < miss!.previousShare);
  });

  it('names the tool list when a tool was added among the schemas', () => {
    const editTool = prompt('tool:edit_file', 'tool-schema', 'tools', 600, 'edit_file schema', { role: 'tool' });
    const next = request(14, [system, agents, readTool, editTool, runTool, ...conversation, framing], 3_500);
    const miss = cacheMissCause(previous, next);
    assert.deepEqual([miss?.kind, miss?.cause, miss?.itemId, miss?.uncachedTokens], ['tools', 'tool list changed', 'tool:edit_file', 400 + 100 + 200 + 5_000 + 150]);
  });

  it('names the tool list when a tool was removed', () => {
    const next = request(14, [system, agents, readTool, ...conversation, framing], 3_500);
    const miss = cacheMissCause(previous, next);
    assert.deepEqual([miss?.kind, miss?.itemId, miss?.uncachedTokens], ['tools', 'tool:run_command', 100 + 200 + 5_000 + 150]);
  });

  it('names the system prompt when a base section changed', () => {
    const next = request(14, [prompt('system:base', 'system-section', 'system', 2_100, 'You are Tally, v2.'), agents, readTool, runTool, ...conversation, framing], 0);
    const miss = cacheMissCause(previous, next);
    assert.deepEqual([miss?.kind, miss?.cause, miss?.position, miss?.uncachedTokens], ['system', 'system prompt changed', 0, 1_500 + afterAgents]);
  });

  it('names the compaction that ran before the request when it rewrote the conversation', () => {
    const summary = message('sum-1', 'user', 300, { kind: 'summary' });
    const next = request(14, [system, agents, readTool, runTool, summary, message('m4', 'assistant', 150), framing], 4_200, { compactionId: 'c-1' });
    const miss = cacheMissCause(previous, next);
    assert.deepEqual([miss?.kind, miss?.cause, miss?.uncachedTokens], ['compaction', 'compaction at #14', 150]);
  });

  it('names an earlier tool result that changed when no compaction ran', () => {
    const truncated = message('m3', 'tool', 800, { toolName: 'read_file', badges: ['truncated'] });
    const next = request(14, [system, agents, readTool, runTool, conversation[0], conversation[1], truncated, conversation[3], framing], 4_200);
    const miss = cacheMissCause(previous, next);
    assert.deepEqual([miss?.kind, miss?.cause, miss?.itemId, miss?.uncachedTokens], ['message', 'earlier read_file result changed', 'm3', 150]);
  });

  it('tells a context note that moved after the new messages from one whose text changed', () => {
    const note = prompt('dynamic:status', 'note', 'dynamic', 60, 'Context: 40% used.', { role: 'user' });
    const before = request(13, [system, agents, ...conversation.slice(0, 2), message('u2', 'user', 30), note, framing], 3_600);
    const movedNote = request(14, [system, agents, ...conversation.slice(0, 2), message('u2', 'user', 30), message('a2', 'assistant', 900), message('u3', 'user', 40), note, framing], 3_000);
    const moved = cacheMissCause(before, movedNote);
    assert.deepEqual([moved?.kind, moved?.cause, moved?.itemId, moved?.position, moved?.uncachedTokens], ['dynamic', 'context note moved after the new messages', 'dynamic:status', 7, 60]);
    const edited = prompt('dynamic:status', 'note', 'dynamic', 60, 'Context: 45% used.', { role: 'user' });
    const noteAndMessage = request(14, [system, agents, conversation[0], message('m2-edited', 'assistant', 200), message('u2', 'user', 30), edited, framing], 3_000);
    const changed = cacheMissCause(before, noteAndMessage);
    assert.deepEqual([changed?.kind, changed?.uncachedTokens], ['message', 30]);
  });

  it('says the provider dropped its cache when the previous request is still the whole prefix', () => {
    const next = request(14, [system, agents, readTool, runTool, ...conversation, message('m5', 'user', 50), framing], 1_000);
    const miss = cacheMissCause(previous, next);
    assert.equal(miss?.kind, 'unchanged');
    assert.equal(miss?.uncachedTokens, 8_000);
  });

  it('finds no cause when only new tokens went uncached: a long new result lowers the share while the cache read as much as before', () => {
    const next = request(14, [system, agents, readTool, runTool, ...conversation, message('m5', 'tool', 40_000, { toolName: 'run_command' }), framing], 9_200);
    assert.equal(cacheMissCause(previous, next), undefined);
  });

  it('finds no cause when the cached share did not fall, or a request has no cache report', () => {
    const grown = request(14, [system, agents, readTool, runTool, ...conversation, message('m5', 'user', 50), framing], 9_600);
    assert.equal(cacheMissCause(previous, grown), undefined);
    assert.equal(cacheMissCause(previous, request(14, grown.items, undefined)), undefined);
    assert.equal(cacheMissCause(request(13, previous.items, undefined), request(14, grown.items, 0)), undefined);
  });
});
