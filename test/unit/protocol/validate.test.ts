import * as assert from 'assert';
import { parseChatMessage, parseInspectorMessage } from '../../../src/protocol/validate';

function rejected(result: unknown): string {
  assert.ok(result && typeof result === 'object' && 'error' in result, `expected a rejection, got ${JSON.stringify(result)}`);
  return (result as { error: string }).error;
}

const KB = 1024;

describe('protocol validators: inspector → host', () => {
  const valid: unknown[] = [
    { type: 'ready' },
    { type: 'refresh' },
    { type: 'selectRequest', requestIndex: 0 },
    { type: 'selectRequest', requestIndex: 41 },
    { type: 'loadBlob', refId: 'res_7f3a', offset: 0 },
    { type: 'loadBlob', refId: 'res_7f3a', offset: 16384 },
    { type: 'openBlobInEditor', refId: 'res_7f3a' },
    { type: 'pin', messageId: 'm-12', pinned: true },
    { type: 'pin', messageId: 'm-12', pinned: false },
    { type: 'previewCompaction' },
    { type: 'previewCompaction', focus: 'keep the failing test output' },
    { type: 'previewCompaction', focus: '' },
    { type: 'confirmCompaction' },
    { type: 'confirmCompaction', focus: 'keep the failing test output' },
    { type: 'forkFromRequest', sessionId: 's-1', requestIndex: 0 },
    { type: 'forkFromRequest', sessionId: 's-1', requestIndex: 12 },
  ];
  for (const message of valid) {
    it(`accepts ${JSON.stringify(message)}`, () => {
      assert.deepStrictEqual(parseInspectorMessage(message), message);
    });
  }

  const invalid: Array<[string, unknown]> = [
    ['null', null],
    ['a string', 'ready'],
    ['a number', 7],
    ['an array', [{ type: 'ready' }]],
    ['no type', { requestIndex: 1 }],
    ['a numeric type', { type: 1 }],
    ['an unknown type', { type: 'deleteEverything' }],
    ['a chat-only type', { type: 'send', text: 'hi' }],
    ['an inherited type name', { type: 'toString' }],
    ['an extra key on ready', { type: 'ready', extra: 1 }],
    ['forkFromRequest without a session', { type: 'forkFromRequest', requestIndex: 1 }],
    ['forkFromRequest with an empty session', { type: 'forkFromRequest', sessionId: '', requestIndex: 1 }],
    ['forkFromRequest with a 201-char session', { type: 'forkFromRequest', sessionId: 's'.repeat(201), requestIndex: 1 }],
    ['forkFromRequest without an index', { type: 'forkFromRequest', sessionId: 's-1' }],
    ['forkFromRequest with a string index', { type: 'forkFromRequest', sessionId: 's-1', requestIndex: '2' }],
    ['forkFromRequest with a negative index', { type: 'forkFromRequest', sessionId: 's-1', requestIndex: -1 }],
    ['forkFromRequest with a fractional index', { type: 'forkFromRequest', sessionId: 's-1', requestIndex: 0.5 }],
    ['forkFromRequest with an extra key', { type: 'forkFromRequest', sessionId: 's-1', requestIndex: 1, messages: [] }],
    ['selectRequest without index', { type: 'selectRequest' }],
    ['selectRequest with a string index', { type: 'selectRequest', requestIndex: '3' }],
    ['selectRequest with a negative index', { type: 'selectRequest', requestIndex: -1 }],
    ['selectRequest with a fractional index', { type: 'selectRequest', requestIndex: 1.5 }],
    ['selectRequest with NaN', { type: 'selectRequest', requestIndex: NaN }],
    ['selectRequest with Infinity', { type: 'selectRequest', requestIndex: Infinity }],
    ['loadBlob without offset', { type: 'loadBlob', refId: 'r' }],
    ['loadBlob with a string offset', { type: 'loadBlob', refId: 'r', offset: '0' }],
    ['loadBlob with an empty ref', { type: 'loadBlob', refId: '', offset: 0 }],
    ['loadBlob with a numeric ref', { type: 'loadBlob', refId: 5, offset: 0 }],
    ['loadBlob with a 201-char ref', { type: 'loadBlob', refId: 'r'.repeat(201), offset: 0 }],
    ['openBlobInEditor without ref', { type: 'openBlobInEditor' }],
    ['openBlobInEditor with an object ref', { type: 'openBlobInEditor', refId: { id: 'r' } }],
    ['pin without pinned', { type: 'pin', messageId: 'm' }],
    ['pin with a string pinned', { type: 'pin', messageId: 'm', pinned: 'true' }],
    ['pin with a null id', { type: 'pin', messageId: null, pinned: true }],
    ['pin with a long id', { type: 'pin', messageId: 'x'.repeat(300), pinned: true }],
    ['previewCompaction with a numeric focus', { type: 'previewCompaction', focus: 3 }],
    ['previewCompaction with a null focus', { type: 'previewCompaction', focus: null }],
    ['previewCompaction with a 3 KB focus', { type: 'previewCompaction', focus: 'f'.repeat(3 * KB) }],
    ['confirmCompaction with a 2 KB+1 focus', { type: 'confirmCompaction', focus: 'f'.repeat(2 * KB + 1) }],
    ['confirmCompaction whose focus is short in chars but long in UTF-8', { type: 'confirmCompaction', focus: '€'.repeat(700) }],
  ];
  for (const [name, message] of invalid) {
    it(`rejects ${name}`, () => {
      rejected(parseInspectorMessage(message));
    });
  }

  it('accepts a focus of exactly 2 KB', () => {
    const focus = 'f'.repeat(2 * KB);
    assert.deepStrictEqual(parseInspectorMessage({ type: 'previewCompaction', focus }), { type: 'previewCompaction', focus });
  });

  it('accepts an id of exactly 200 characters', () => {
    const refId = 'r'.repeat(200);
    assert.deepStrictEqual(parseInspectorMessage({ type: 'openBlobInEditor', refId }), { type: 'openBlobInEditor', refId });
  });

  it('refuses an own __proto__ key (as JSON.parse creates it) and does not pollute prototypes', () => {
    const message = JSON.parse('{"type":"pin","messageId":"m","pinned":true,"__proto__":{"polluted":true}}');
    assert.match(rejected(parseInspectorMessage(message)), /__proto__/);
    assert.strictEqual(({} as Record<string, unknown>).polluted, undefined);
  });

  it('refuses a message whose prototype is not Object', () => {
    class Fake {
      type = 'ready';
    }
    rejected(parseInspectorMessage(new Fake()));
  });

  it('does not run getters and never throws on a hostile proxy', () => {
    let getterRan = false;
    const withGetter = { type: 'selectRequest' } as Record<string, unknown>;
    Object.defineProperty(withGetter, 'requestIndex', { enumerable: true, get: () => ((getterRan = true), 1) });
    rejected(parseInspectorMessage(withGetter));
    assert.strictEqual(getterRan, false);
    const hostile = new Proxy({}, { ownKeys: () => { throw new Error('boom'); }, getOwnPropertyDescriptor: () => { throw new Error('boom'); } });
    assert.doesNotThrow(() => parseInspectorMessage(hostile));
    rejected(parseInspectorMessage(hostile));
  });

  it('returns a fresh object, not the input', () => {
    const message = { type: 'selectRequest', requestIndex: 2 };
    const parsed = parseInspectorMessage(message);
    assert.notStrictEqual(parsed, message);
  });
});

describe('protocol validators: chat → host', () => {
  const valid: unknown[] = [
    { type: 'ready' },
    { type: 'send', text: 'Fix the failing test in src/app.ts' },
    { type: 'send', text: '/compact keep the stack trace' },
    { type: 'send', text: 'line one\nline two' },
    { type: 'cancel' },
    { type: 'approval', callId: 'call_1', approved: true },
    { type: 'approval', callId: 'call_1', approved: false },
    { type: 'approval', callId: 'call_1', approved: true, forSession: true },
    { type: 'newSession' },
    { type: 'resumeSession', sessionId: 's-20240101' },
    { type: 'selectModel' },
    { type: 'openDemo' },
    { type: 'discardPending' },
    { type: 'openResult', refId: 'res_1' },
    { type: 'openInspector' },
    { type: 'showEarlier' },
  ];
  for (const message of valid) {
    it(`accepts ${JSON.stringify(message)}`, () => {
      assert.deepStrictEqual(parseChatMessage(message), message);
    });
  }

  it('accepts a 100 KB message and rejects one byte more', () => {
    const text = 'a'.repeat(100 * KB);
    assert.deepStrictEqual(parseChatMessage({ type: 'send', text }), { type: 'send', text });
    rejected(parseChatMessage({ type: 'send', text: text + 'a' }));
  });

  it('measures the text limit in UTF-8 bytes', () => {
    rejected(parseChatMessage({ type: 'send', text: '😀'.repeat(26 * KB) }));
  });

  const invalid: Array<[string, unknown]> = [
    ['undefined', undefined],
    ['an array', []],
    ['a boolean', true],
    ['an unknown type', { type: 'runShell', command: 'rm -rf /' }],
    ['an inspector-only type', { type: 'selectRequest', requestIndex: 1 }],
    ['cancel with an extra key', { type: 'cancel', now: true }],
    ['send without text', { type: 'send' }],
    ['send with a numeric text', { type: 'send', text: 42 }],
    ['send with an empty text', { type: 'send', text: '' }],
    ['send with only whitespace', { type: 'send', text: '  \n ' }],
    ['approval without approved', { type: 'approval', callId: 'c' }],
    ['approval with approved as a string', { type: 'approval', callId: 'c', approved: 'yes' }],
    ['approval with approved as 1', { type: 'approval', callId: 'c', approved: 1 }],
    ['approval with forSession as a string', { type: 'approval', callId: 'c', approved: true, forSession: 'yes' }],
    ['approval with an empty callId', { type: 'approval', callId: '', approved: true }],
    ['approval with a long callId', { type: 'approval', callId: 'c'.repeat(201), approved: true }],
    ['resumeSession without id', { type: 'resumeSession' }],
    ['resumeSession with an array id', { type: 'resumeSession', sessionId: ['s'] }],
    ['selectModel with a model id (the user picks the model in VS Code)', { type: 'selectModel', modelId: 'm' }],
    ['discardPending with a text', { type: 'discardPending', text: 'x' }],
    ['openResult with a numeric ref', { type: 'openResult', refId: 9 }],
    ['openResult with an extra key', { type: 'openResult', refId: 'r', path: '/etc/passwd' }],
    ['a constructor key', { type: 'newSession', constructor: 'x' }],
  ];
  for (const [name, message] of invalid) {
    it(`rejects ${name}`, () => {
      rejected(parseChatMessage(message));
    });
  }

  it('refuses __proto__ smuggled through JSON', () => {
    rejected(parseChatMessage(JSON.parse('{"type":"send","text":"hi","__proto__":{"isAdmin":true}}')));
  });

  it('accepts a null-prototype object (structured clones may be plain either way)', () => {
    const message = Object.assign(Object.create(null), { type: 'openInspector' });
    assert.deepStrictEqual(parseChatMessage(message), { type: 'openInspector' });
  });
});
