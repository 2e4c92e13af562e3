import { strict as assert } from 'assert';
import { MESSAGE_OVERHEAD_TOKENS } from '../../../../src/core/accounting/messageTokens';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { windowFigures } from '../../../../src/core/accounting/windowFigures';
import type { AttachmentInfo } from '../../../../src/core/model/message';
import { useTurnScheduler } from '../../../../src/core/nextTurn';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { withSettings } from '../../../../src/core/settings';
import { useSha256 } from '../../../../src/core/toolOutput/scan';
import { AttachmentDraft, type AttachmentSources, type DraftSession } from '../../../../src/host/chat/attachmentDraft';
import { nodeSha256 } from '../../../../src/node/sha256';
import type { AttachTarget } from '../../../../src/protocol/attachments';
import { tempStore } from '../../../support/tempStore';

const MiB = 1024 * 1024;

/** A 20 MB build log, read as bytes as the workspace reads a saved file (a new copy on each read). */
function buildLog(bytes: number): Uint8Array {
  const line = 'step compiled src/module.ts in 12 ms, 0 warnings\n';
  return new TextEncoder().encode(line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes));
}

class OneFile implements AttachmentSources {
  constructor(private readonly bytes: Uint8Array) {}
  async read(target: AttachTarget): Promise<{ info: AttachmentInfo; content: Uint8Array }> {
    assert.equal(target.kind, 'file');
    return { info: { kind: 'file', label: 'logs/build.log', path: 'logs/build.log' }, content: this.bytes.slice() };
  }
  async complete(): Promise<never[]> {
    return [];
  }
  async dropped(): Promise<AttachTarget> {
    throw new Error('not in this test');
  }
}

describe('attachments: a large file is handled in slices, with turns of the event loop between', function () {
  this.timeout(60_000);
  /** Bytes the scan hashed since the event loop last turned, and the most seen. */
  let sinceTurn = 0;
  let mostWithoutTurn = 0;
  let turns = 0;

  beforeEach(() => {
    sinceTurn = mostWithoutTurn = turns = 0;
    useTurnScheduler((run) => {
      turns++;
      sinceTurn = 0;
      setImmediate(run);
    });
    useSha256(() => {
      const hash = nodeSha256();
      return {
        update(bytes: Uint8Array) {
          sinceTurn += bytes.length;
          mostWithoutTurn = Math.max(mostWithoutTurn, sinceTurn);
          hash.update(bytes);
        },
        hex: () => hash.hex(),
      };
    });
  });
  afterEach(() => {
    useTurnScheduler(setImmediate);
    useSha256(nodeSha256);
  });

  it('attaching a 20 MB file hashes at most 1 MiB between turns, and the send compares what it reads again in slices too', async () => {
    const env = await tempStore();
    try {
      const settings = withSettings({ contextWindow: 200_000, maxOutputTokens: 8_000 });
      const sessionId = (await env.store.createSession({ title: 'attach' })).id;
      const contextSession = await ContextSession.open({ store: env.store, sessionId, settings, counter: getTokenCounter() });
      const session: DraftSession = { sessionId, settings, messages: contextSession.messages, count: contextSession.count, store: env.store, figures: () => windowFigures(contextSession.measure()) };
      const draft = new AttachmentDraft(new OneFile(buildLog(20 * MiB)));

      const chip = await draft.add(session, { kind: 'file', path: 'logs/build.log' });
      assert.ok(chip.stored, 'stored whole, a preview sent');
      assert.ok(mostWithoutTurn <= MiB, `at most 1 MiB hashed without a turn (was ${mostWithoutTurn} bytes)`);
      assert.ok(mostWithoutTurn > 0, 'the scan hashed through the installed SHA-256');

      // At send the file is read again; unchanged, the chip's message is sent as counted, after a comparison in slices.
      turns = 0;
      const [sent] = await draft.takeForSend(session);
      assert.ok(turns >= 19, `the comparison of 20 MB let the event loop turn between slices (${turns} turns)`);
      assert.equal(contextSession.count(sent) - MESSAGE_OVERHEAD_TOKENS, chip.tokens, "the message sent is the one the chip counted");
    } finally {
      await env.dispose();
    }
  });
});
