/** Realistic host states for the webview tests: a coding session two hours in, one compaction behind it. */
import type { CompactionEventRecord, ComponentTokens, RequestItem } from '../../src/protocol/records';
import { chatCompactionRecord, type ChatState } from '../../src/protocol/chat';
import { compactionPreview, compactionView, type CacheMissCause, type CompactionPreviewView, type InspectorState, type WindowFigures } from '../../src/protocol/inspector';
import { ContextBudget } from '../../src/core/accounting/budget';
import { windowFigures } from '../../src/core/accounting/windowFigures';
import { DEFAULT_SETTINGS } from '../../src/core/settings';

/** A model's window and what the context holds: what the host measures the figures from. */
export interface WindowShape {
  contextWindow: number;
  maxOutputTokens: number;
  components: ComponentTokens;
  warning?: string;
}

/** The window figures the host would send for a budget (the same function the host uses). */
export function figuresOf(b: WindowShape, lastRequest?: Parameters<typeof windowFigures>[1]): WindowFigures {
  const budget = new ContextBudget({ contextWindow: b.contextWindow, maxOutputTokens: b.maxOutputTokens, settings: DEFAULT_SETTINGS }).setComponents(b.components);
  return { ...windowFigures(budget, lastRequest), warning: b.warning };
}

const T0 = Date.UTC(2025, 4, 12, 9, 30);

export const compaction: CompactionEventRecord = {
  id: 'cmp-1',
  sessionId: 's-1',
  trigger: 'auto',
  status: 'complete',
  strategies: ['tool-result-masking', 'tool-call-summarization', 'threshold-summarization'],
  tokensBefore: 176_420,
  tokensAfter: 71_980,
  messagesBefore: 212,
  messagesAfter: 64,
  startedAt: T0 + 40 * 60_000,
  durationMs: 3_420,
  summary: 'Goal: make `npm test` pass after the config loader refactor.\nDone: fixed path resolution in src/config/load.ts; 3 of 5 failing tests pass.\nNext: the two snapshot tests in test/config.test.ts.',
  removed: [
    { messageId: 'm-17', reason: 'archived', strategy: 'tool-result-masking', kind: 'tool_result', role: 'tool', tokens: 18_230, toolName: 'run_command', offloadRef: 'res_a1', preview: '> jest --runInBand\nFAIL test/config.test.ts' },
    { messageId: 'm-22', reason: 'tool_summarized', strategy: 'tool-call-summarization', kind: 'tool_result', role: 'tool', tokens: 9_400, toolName: 'read_file', preview: 'export function loadConfig(' },
    { messageId: 'm-3', reason: 'summarized', strategy: 'threshold-summarization', kind: 'assistant', role: 'assistant', tokens: 2_100, preview: 'I will start by reading the loader.' },
  ],
};

export const olderCompaction: CompactionEventRecord = {
  ...compaction,
  id: 'cmp-0',
  trigger: 'manual',
  focus: 'keep the stack trace',
  startedAt: T0 + 10 * 60_000,
  tokensBefore: 90_000,
  tokensAfter: 60_000,
  summary: 'Earlier summary.',
  removed: [],
};

const components = { system: 3_200, skills: 1_800, tools: 9_400, messages: 28_500, toolResults: 61_200, summaries: 4_100 };
export const used = Object.values(components).reduce((a, b) => a + b, 0);
/** The inspector's window: 200K, 16K reserved for output. */
export const inspectorWindow: WindowShape = { contextWindow: 200_000, maxOutputTokens: 16_000, components };

function turn(i: number, scale: number, compactionId?: string) {
  const c = { system: 3_200, skills: 1_800, tools: 9_400, messages: Math.round(20_000 * scale), toolResults: Math.round(50_000 * scale), summaries: compactionId ? 4_100 : 0 };
  const total = Object.values(c).reduce((a, b) => a + b, 0);
  return { requestIndex: i, createdAt: T0 + i * 5 * 60_000, components: c, estimatedInputTokens: total, reportedInputTokens: Math.round(total * 1.03), reportedOutputTokens: 850, cacheReadTokens: Math.round(total * 0.7), compactionId, itemCount: 10 + i * 3 };
}

export const currentItems: RequestItem[] = [
  { messageId: 'sys', role: 'system', kind: 'system', tokens: 3_200, badges: ['synthetic'], preview: 'You are Tally, a coding agent…' },
  { messageId: 'sum-1', role: 'user', kind: 'summary', tokens: 4_100, badges: ['summarized', 'synthetic'], preview: 'Goal: make `npm test` pass…' },
  { messageId: 'u-40', role: 'user', kind: 'user', tokens: 120, badges: ['pinned'], preview: 'Never touch the generated files in src/gen.' },
  { messageId: 'a-41', role: 'assistant', kind: 'assistant', tokens: 640, badges: [], preview: 'Running the snapshot tests now.' },
  { messageId: 't-42', role: 'tool', kind: 'tool_result', tokens: 31_000, toolName: 'run_command', badges: ['truncated', 'offloaded'], preview: '> jest test/config.test.ts\n… 1,204 lines omitted …' },
  { messageId: 't-43', role: 'tool', kind: 'tool_result', tokens: 8_800, toolName: 'read_file', badges: [], preview: 'import { loadConfig } from "../src/config/load";' },
  { messageId: 'a-44', role: 'assistant', kind: 'assistant', tokens: 410, badges: [], preview: 'The snapshot differs only in path separators.' },
];

export const inspectorState: InspectorState = {
  session: { id: 's-1', title: 'Fix config loader tests', origin: 'chat' },
  model: 'Claude Sonnet 4.5',
  figures: figuresOf(inspectorWindow, { requestIndex: 5, tokens: used + 1_300 }),
  calibration: { factor: 1.031, error: 0.012, samples: 9 },
  requests: [turn(0, 0.2), turn(1, 0.6), turn(2, 1.2), { ...turn(3, 2.1), cacheReadTokens: 51_535, cacheWriteTokens: 1_200, reasoningTokens: 610 }, turn(4, 0.9, 'cmp-1'), turn(5, 1.3)],
  compactions: [compactionView(compaction), compactionView(olderCompaction)],
  blobs: [
    { id: 'res_a1', sessionId: 's-1', toolName: 'run_command', toolCallId: 'call_17', byteSize: 48_213, lineCount: 1_204, sha256: 'ab12cd34ef56ab12cd34ef56', createdAt: T0 + 30 * 60_000 },
    { id: 'res_b2', sessionId: 's-1', toolName: 'search', byteSize: 9_950, lineCount: 310, sha256: 'ff00ee11dd22cc33bb44aa55', createdAt: T0 + 50 * 60_000 },
  ],
  current: currentItems,
  averageRequestGrowth: 6_400,
  requestsUntilCompaction: 10,
};
inspectorState.blobTitles = { res_a1: 'run_command npm test · request #3', res_b2: 'search loadConfig · request #4' };

export const requestItems: RequestItem[] = currentItems.slice(0, 6).map((i) => ({ ...i, messageId: `${i.messageId}-t3` }));

/** Request #3 read less from the cache than #2: AGENTS.md changed near the start of its prefix. */
export const turnCacheMiss: CacheMissCause = { kind: 'agents-md', cause: 'AGENTS.md changed', previousRequest: 2, previousShare: 68_880 / 101_352, share: 51_535 / 166_242, itemId: 'agents:AGENTS.md', position: 1, uncachedTokens: 58_200 };

export const preview: CompactionPreviewView = compactionPreview({
  ...compaction,
  id: 'cmp-preview',
  focus: 'keep the snapshot diff',
  tokensBefore: used,
  tokensAfter: 52_300,
  strategies: ['tool-result-masking', 'threshold-summarization'],
  removed: [
    { messageId: 't-42', reason: 'archived', strategy: 'tool-result-masking', kind: 'tool_result', role: 'tool', tokens: 31_000, toolName: 'run_command', offloadRef: 'res_a1', preview: '> jest test/config.test.ts' },
    { messageId: 'a-41', reason: 'summarized', strategy: 'threshold-summarization', kind: 'assistant', role: 'assistant', tokens: 640, preview: 'Running the snapshot tests now.' },
  ],
  status: 'complete',
  summary: undefined,
});

export const chatState: ChatState = {
  sessionId: 's-1',
  sessionTitle: 'Fix config loader tests',
  busy: true,
  entries: [
    { kind: 'user', id: 'u-1', text: 'The config tests fail after my refactor. Can you fix them?' },
    {
      kind: 'assistant',
      id: 'a-1',
      text: 'Let me run the tests first.\n```sh\nnpm test -- test/config.test.ts\n```',
      toolCalls: [
        { callId: 'call_1', name: 'run_command', arguments: '{"command":"npm test -- test/config.test.ts","timeout":120}', status: 'done', resultPreview: 'FAIL test/config.test.ts\n  ● loads relative paths', truncated: true, offloadRef: 'res_a1', stored: { lines: 1_204, bytes: 48_213 } },
      ],
    },
    { kind: 'compaction', id: 'cmp-1', record: chatCompactionRecord(compaction) },
    {
      kind: 'assistant',
      id: 'a-2',
      text: 'The loader joins paths with "/". I will patch it.',
      toolCalls: [
        {
          callId: 'call_2',
          name: 'edit_file',
          arguments: '{"path":"src/config/load.ts","old":"a + \'/\' + b","new":"path.join(a, b)"}',
          status: 'awaiting_approval',
          approval: { title: 'Edit src/config/load.ts', detail: "--- a/src/config/load.ts\n+++ b/src/config/load.ts\n-  return a + '/' + b;\n+  return path.join(a, b);", kind: 'edit' },
        },
      ],
    },
    { kind: 'notice', id: 'n-1', text: 'Anthropic: rate limited (HTTP 429) — trying again in 4 s (attempt 2)…', level: 'warning' },
  ],
  meter: figuresOf({ contextWindow: 200_000, maxOutputTokens: 16_000, components: { system: 2_080, skills: 0, tools: 0, messages: 112_000, toolResults: 0, summaries: 0 } }, { requestIndex: 7, tokens: 131_300 }),
  model: { id: 'claude-sonnet-4-5', label: 'Claude Sonnet 4.5' },
  sessions: [
    { id: 's-1', title: 'Fix config loader tests', updatedAt: T0 + 60 * 60_000 },
    { id: 's-0', title: 'Add CSV export', updatedAt: T0 - 86_400_000 },
  ],
};

/** A reply that uses everything a chat's markdown must render, and text a model could use to inject markup. */
export const markdownReply = [
  'The fix is **one line** in the loader:',
  '',
  '- use `path.join`',
  '- keep the tests',
  '',
  '| File | Change |',
  '| :--- | ---: |',
  '| load.ts | 1 line |',
  '',
  'See [the docs](https://nodejs.org/api/path.html) or [this](javascript:alert(1)).',
  '',
  '```ts',
  "return path.join(a, b);",
  '```',
  '',
  'Raw <script>window.__pwned = 1</script> and <img src=x onerror="window.__pwned = 2"> stay text.',
].join('\n');

export const markdownState: ChatState = {
  ...chatState,
  busy: false,
  entries: [
    { kind: 'user', id: 'u-1', text: 'Fix the loader.', tokens: 12 },
    { kind: 'assistant', id: 'a-md', text: markdownReply, toolCalls: [], tokens: 118 },
    { kind: 'usage', id: 'usage-u-1', usage: { requests: 2, lastRequestTokens: 14_200, inputTokens: 27_900, outputTokens: 512, cachedTokens: 13_500, cacheWriteTokens: 1_200, reasoningTokens: 300, cost: 0.0271 } },
  ],
};
