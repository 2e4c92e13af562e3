import { strict as assert } from 'assert';
import { parseChatMessage } from '../../../src/protocol/validate';

const refused = (raw: unknown, why: RegExp) => {
  const parsed = parseChatMessage(raw);
  assert.ok('error' in parsed, `refused: ${JSON.stringify(raw).slice(0, 120)}`);
  assert.match((parsed as { error: string }).error, why);
};

describe('attachment messages from the chat webview are checked before the host acts on them', () => {
  it('takes well-formed ones as they are', () => {
    assert.deepEqual(parseChatMessage({ type: 'attach', target: { kind: 'file', path: 'src/app.ts' } }), { type: 'attach', target: { kind: 'file', path: 'src/app.ts' } });
    assert.deepEqual(parseChatMessage({ type: 'attach', target: { kind: 'problems' } }), { type: 'attach', target: { kind: 'problems' } });
    assert.deepEqual(parseChatMessage({ type: 'attach', target: { kind: 'resource', server: 'notes', uri: 'test://readme' } }), { type: 'attach', target: { kind: 'resource', server: 'notes', uri: 'test://readme' } });
    assert.deepEqual(parseChatMessage({ type: 'attachQuery', queryId: 3, query: '' }), { type: 'attachQuery', queryId: 3, query: '' });
    assert.deepEqual(parseChatMessage({ type: 'dropUris', uris: ['file:///ws/a.ts'] }), { type: 'dropUris', uris: ['file:///ws/a.ts'] });
    assert.deepEqual(parseChatMessage({ type: 'draft', text: '' }), { type: 'draft', text: '' });
  });

  it('refuses paths that leave the workspace or are not relative, and targets with keys of another kind', () => {
    refused({ type: 'attach', target: { kind: 'file', path: '../secrets.txt' } }, /must not contain "\.\."/);
    refused({ type: 'attach', target: { kind: 'folder', path: 'src/../../etc' } }, /must not contain "\.\."/);
    refused({ type: 'attach', target: { kind: 'file', path: '/etc/passwd' } }, /relative to a workspace folder/);
    refused({ type: 'attach', target: { kind: 'file', path: 'C:\\Windows\\win.ini' } }, /relative to a workspace folder/);
    refused({ type: 'attach', target: { kind: 'file', path: 'a\0b' } }, /NUL/);
    refused({ type: 'attach', target: { kind: 'file' } }, /"path" must be a string/);
    refused({ type: 'attach', target: { kind: 'selection', path: 'x' } }, /unexpected key "path"/);
    refused({ type: 'attach', target: { kind: 'shell', command: 'rm -rf /' } }, /not an attachment kind/);
    refused({ type: 'attach', target: ['file', 'a'] }, /must be an object/);
    refused({ type: 'attach', target: { kind: 'file', path: 'a'.repeat(5_000) } }, /longer than 4096 bytes/);
    refused({ type: 'attach', target: { kind: 'resource', server: 'notes' } }, /"uri" must be a string/);
    refused({ type: 'attach', target: { kind: 'resource', server: 'notes', uri: 'test://readme', path: 'x' } }, /unexpected key "path"/);
  });

  it('bounds completion queries, drops and drafts', () => {
    refused({ type: 'attachQuery', queryId: 1, query: 'x'.repeat(201) }, /longer than 200 bytes/);
    refused({ type: 'attachQuery', queryId: -1, query: 'x' }, /non-negative integer/);
    refused({ type: 'dropUris', uris: [] }, /empty/);
    refused({ type: 'dropUris', uris: Array.from({ length: 51 }, (_, i) => `file:///ws/${i}`) }, /more than 50 files/);
    refused({ type: 'dropUris', uris: ['file:///a', 7] }, /"uris\[1\]": "uri" must be a string/);
    refused({ type: 'draft', text: 'x'.repeat(100 * 1024 + 1) }, /longer than/);
    refused({ type: 'removeAttachment', id: '' }, /must not be empty/);
    refused({ type: 'openAttachment', id: 'a', extra: 1 }, /unexpected key "extra"/);
  });
});
