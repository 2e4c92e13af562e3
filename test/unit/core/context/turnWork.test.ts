/**
 * A turn's own work follows what the turn added, not how long the session is: planning each
 * request, measuring the budget, the usage basis, the request body's check of what it sent before
 * and the stored change of the item list read the messages the turn appended (and the few around
 * the dynamic note), whether the session holds 600 messages or 3,000. Work is counted in list
 * positions read (listWork), never in time; and what the turn sends and stores stays exactly what a
 * request built from scratch gives.
 */
import { strict as assert } from 'assert';
import { countMessage } from '../../../../src/core/accounting/messageTokens';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { assistantMessage, toolResultMessage, userMessage } from '../../../../src/core/model/factories';
import { listWork } from '../../../../src/core/model/listLineage';
import type { Message } from '../../../../src/core/model/message';
import type { RequestItem } from '../../../../src/core/model/records';
import { encodeRequestItems } from '../../../../src/core/model/requestItemsDelta';
import type { PromptSections } from '../../../../src/core/prompt/promptSections';
import { OpenAIBodyBuilder } from '../../../../src/core/providers/openai/openaiBodyBytes';
import { toOpenAIBody } from '../../../../src/core/providers/openai/openaiRequest';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { requestContent } from '../../../../src/core/context/requestItems';
import { withSettings } from '../../../../src/core/settings';
import { tempStore } from '../../../support/tempStore';

const counter = getTokenCounter('o200k_base');
const count = (m: Message) => countMessage(m, counter);
const settings = withSettings({ contextWindow: 20_000_000, maxOutputTokens: 4_000 });
const OPTIONS = { maxTokensField: 'max_tokens' as const };

/** A prompt with a system section, a tool and a dynamic part that changes every request, as the agent builds one. */
function promptFor(step: number): { fixed: { system: number; skills: number; tools: number }; sections: PromptSections } {
  const sections: PromptSections = {
    system: [BASE],
    tools: [LIST_FILES],
    dynamic: [{ id: 'note:context', kind: 'note', label: 'Context', text: `Open file: src/${step}.ts`, tokens: 7 }],
  };
  return { fixed: { system: BASE.tokens + 7 + 4, skills: 0, tools: LIST_FILES.tokens + 8 }, sections };
}
const BASE = { id: 'system:base', kind: 'system-section' as const, label: 'Base instructions', text: 'You are a coding agent.', tokens: 6 };
const LIST_FILES = { id: 'tool:list_files', name: 'list_files', source: 'built-in', description: 'Lists files.', text: '{"name":"list_files"}', tokens: 5, deferred: false };

/** A session of about `size` messages: a user request every 50, assistant steps with a call and its result. */
function seeded(size: number): Message[] {
  const messages: Message[] = [];
  let t = 1;
  while (messages.length < size) {
    messages.push(userMessage(`Task ${messages.length}: fix the build.`, { createdAt: t++ }));
    for (let i = 0; i < 24; i++) {
      const call = { id: `c${messages.length}`, name: 'run_command', arguments: `{"command":"npm test -- ${messages.length}"}` };
      messages.push(assistantMessage(`Step ${i}.`, [call], { createdAt: t++ }), toolResultMessage(call, `ok ${messages.length}\n`.repeat(3), { createdAt: t++ }));
    }
  }
  return messages;
}

interface TurnOutcome {
  /** List positions read during the measured turn. */
  positionsRead: number;
  /** Each request of the measured turn: its messages and items, the body sent, the stored change of its items. */
  requests: Array<{ messages: readonly Message[]; items: readonly RequestItem[]; body: string; stored: ReturnType<typeof encodeRequestItems> }>;
}

/** Opens a session of `size` messages, runs a turn to warm up, then measures one turn as the agent and the views drive it. */
async function measuredTurn(size: number): Promise<TurnOutcome> {
  const env = await tempStore();
  try {
    const { id } = await env.store.createSession({ title: 'turn work' });
    const session = await ContextSession.open({ store: env.store, sessionId: id, settings, counter, contextWindow: 20_000_000, maxOutputTokens: 4_000 });
    await session.append(...seeded(size));
    const body = new OpenAIBodyBuilder();
    let step = 0;
    let lastItems: { id: string; items: readonly RequestItem[] } | undefined;
    const requests: TurnOutcome['requests'] = [];
    const request = async () => {
      const prompt = promptFor(step++);
      const planned = await session.nextRequest(prompt);
      const sent = Buffer.concat(body.chunks({ model: 'm', system: [], messages: planned.plan.messages, tools: [], maxOutputTokens: 4_000 }, OPTIONS).parts).toString('utf8');
      const stored = encodeRequestItems(planned.plan.items, lastItems);
      lastItems = { id: `r${step}`, items: planned.plan.items };
      await session.recordResponse(planned, { model: 'm', reported: { inputTokens: planned.plan.budget.used } });
      requests.push({ messages: planned.plan.messages, items: planned.plan.items, body: sent, stored });
      // The views after each event: the status bar's budget and the inspector's plan (from the prompt's numbers only).
      session.measure();
      session.planRequest();
    };
    const turn = async (n: number) => {
      await session.appendUser(`Turn ${n}: list the files.`);
      await request();
      const call = { id: `turn${n}`, name: 'list_files', arguments: '{"path":"."}' };
      await session.appendAssistant('', [call]);
      await session.recordToolResult(call, 'a.ts\nb.ts\n');
      await request();
      await session.appendAssistant(`Done with turn ${n}.`);
      session.measure();
    };
    await turn(0);
    requests.length = 0;
    const before = listWork.positionsRead;
    await turn(1);
    return { positionsRead: listWork.positionsRead - before, requests };
  } finally {
    await env.dispose();
  }
}

describe("a turn's own work", function () {
  this.timeout(120_000);

  it('reads the messages the turn added, the same few positions at 600 messages as at 3,000', async () => {
    const small = await measuredTurn(600);
    const large = await measuredTurn(3_000);
    assert.ok(small.positionsRead > 0, 'the followers of the lists counted what they read');
    assert.equal(large.positionsRead, small.positionsRead, 'a turn in a session five times longer reads no more');
    // Two requests, each followed by some six lists, each reading what was appended since it last read.
    assert.ok(large.positionsRead < 200, `${large.positionsRead} positions read in a turn at 3,000 messages`);
  });

  it('sends and stores exactly what a request built from scratch gives', async () => {
    const { requests } = await measuredTurn(1_000);
    assert.equal(requests.length, 2);
    for (const [i, sent] of requests.entries()) {
      const fresh = requestContent({ messages: sent.messages.filter((m) => m.id !== 'note:context' && m.kind !== 'note'), fixed: promptFor(0).fixed, count });
      assert.deepEqual(
        sent.items.filter((item) => item.section === 'conversation' && item.kind !== 'framing'),
        fresh.items.filter((item) => item.section === 'conversation' && item.kind !== 'framing'),
        `request ${i}: the conversation's items`,
      );
      assert.equal(sent.body, JSON.stringify(toOpenAIBody({ model: 'm', system: [], messages: [...sent.messages], tools: [], maxOutputTokens: 4_000 }, OPTIONS)), `request ${i}: the body, byte for byte`);
    }
    const [, second] = requests;
    assert.ok('base' in second.stored, 'the second list is stored as a change of the first');
    if ('base' in second.stored) {
      // What the turn appended (the call and its result), then the dynamic note after them (new text) and the message framing.
      assert.deepEqual(second.stored.added.map(([, item]) => item.kind), ['assistant', 'tool_result', 'note', 'framing']);
    }
  });
});
