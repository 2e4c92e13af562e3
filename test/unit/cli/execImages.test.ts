/**
 * Images end to end through `tally exec`: `--image` and read_file on an image, sent over real HTTP to
 * the local fake servers (which check image parts as the real APIs do), stored in a real sql.js
 * store with the bytes once in the blob store, and refused before any request for a model that
 * takes none.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'fs';
import { join } from 'path';
import { EXEC_EXIT } from '../../../src/cli/exec';
import { openStore } from '../../../src/node/store';
import { FakeAnthropicServer } from '../../fakes/anthropicServer';
import { FakeOpenAIServer } from '../../fakes/openaiServer';
import { jpegFile, pngFile } from '../../support/imageFiles';
import { KEY, useExecRuns } from './execRuns';

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** Every file under `folder`, read whole (to look for bytes that must not be there). */
function allBytes(folder: string): Buffer {
  const parts: Buffer[] = [];
  for (const name of readdirSync(folder, { recursive: true }) as string[]) {
    const path = join(folder, name);
    if (statSync(path).isFile()) parts.push(readFileSync(path));
  }
  return Buffer.concat(parts);
}

describe('tally exec with images', function () {
  this.timeout(60_000);
  const runs = useExecRuns();
  const { servers, exec } = runs;

  it('--image sends the image to Anthropic as an image block before the task, costed by its formula, and stores its bytes once', async () => {
    const png = pngFile(300, 150);
    writeFileSync(join(runs.work, 'shot.png'), png);
    const server = await new FakeAnthropicServer({ apiKey: KEY }).start();
    servers.push(server);
    server.enqueue({ type: 'reply', parts: [{ text: 'a red box' }] });
    const run = await exec(['What is in the picture?', '--provider', 'anthropic', '--model', 'claude-sonnet-4-5', '--base-url', server.url, '--image', 'shot.png'], { TALLY_API_KEY: KEY });

    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    assert.equal(server.requests.length, 1);
    const content = server.requests[0].body.messages[0].content as any[];
    assert.deepEqual(content.map((b) => b.type), ['text', 'image', 'text']);
    assert.equal(content[0].text, '[Attached image shot.png (PNG 300×150, 60 tokens), from shot.png]');
    assert.deepEqual(content[1].source, { type: 'base64', media_type: 'image/png', data: b64(png) });
    assert.equal(content[2].text, 'What is in the picture?');

    // The transcript keeps a small record; the bytes are in the blob store, once.
    const store = await openStore(runs.storeFolder);
    try {
      const [message] = await store.loadTranscript(run.lines[0].id);
      assert.deepEqual(message.images?.map((i) => [i.mediaType, i.width, i.height, i.byteSize, i.tokens, i.origin]), [['image/png', 300, 150, png.length, 60, 'file']]);
      assert.ok(message.images?.[0].ref, 'stored in the blob store');
      assert.equal(JSON.stringify(message).includes(b64(png).slice(0, 40)), false, 'no image data in the stored message');
    } finally {
      await store.close();
    }
    const stored = allBytes(runs.storeFolder);
    assert.equal(stored.indexOf(Buffer.from(b64(png).slice(0, 60))), -1, 'never stored as base64');
    const raw = stored.indexOf(Buffer.from(png));
    assert.ok(raw >= 0 && stored.indexOf(Buffer.from(png), raw + 1) === -1, 'the bytes stored exactly once');
  });

  it('read_file on a JPEG gives the model the image after the results (Chat Completions: a user message with an image_url part)', async () => {
    const jpeg = jpegFile(64, 48);
    writeFileSync(join(runs.work, 'pic.jpg'), jpeg);
    const server = await new FakeOpenAIServer({ apiKey: KEY }).start();
    servers.push(server as never);
    server.enqueue(
      { type: 'reply', parts: [{ toolCall: { id: 'call_read', name: 'read_file', arguments: '{"path":"pic.jpg"}' } }] },
      { type: 'reply', parts: [{ text: 'grey' }] },
    );
    const run = await exec(['Look at pic.jpg', '--provider', 'openai', '--model', 'gpt-4o', '--base-url', server.url, '--openai-api', 'chat-completions'], { TALLY_API_KEY: KEY });

    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    const messages = server.requests[1].body.messages as any[];
    const tool = messages.findIndex((m) => m.role === 'tool');
    assert.equal(messages[tool].content, 'pic.jpg: JPEG image, 64×48 pixels, 635 bytes; the image follows.'.replace('635', String(jpeg.length)));
    const image = messages[tool + 1];
    assert.equal(image.role, 'user');
    assert.deepEqual(image.content, [
      { type: 'text', text: '[Image pic.jpg (JPEG 64×48, 255 tokens), read by a tool from pic.jpg]' },
      { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${b64(jpeg)}`, detail: 'auto' } },
    ]);
  });

  it('a model known to take no images is refused before any request, saying why', async () => {
    writeFileSync(join(runs.work, 'shot.png'), pngFile(10, 10));
    const server = await new FakeOpenAIServer({ apiKey: KEY }).start();
    servers.push(server as never);
    const run = await exec(['Describe it', '--provider', 'openai', '--model', 'gpt-3.5-turbo', '--base-url', server.url, '--image', 'shot.png'], { TALLY_API_KEY: KEY });
    assert.equal(run.code, EXEC_EXIT.blocked);
    assert.equal(server.requests.length, 0, 'nothing was sent');
    const error = run.lines.find((l) => l.type === 'error');
    assert.equal(error?.message, 'Not sent: an image is in the request and gpt-3.5-turbo takes no images: it is a text-only OpenAI model. Remove the images, or choose a model that takes them (or set "tally.models.images" for this model if it does).');
  });

  it('--image of something that is not an image, or is cut short, or is missing, is a usage error naming the file', async () => {
    writeFileSync(join(runs.work, 'notes.txt'), 'hello');
    writeFileSync(join(runs.work, 'cut.png'), pngFile(20, 20).subarray(0, 18));
    const base = ['Describe it', '--provider', 'anthropic', '--model', 'claude-sonnet-4-5', '--base-url', 'http://127.0.0.1:9'];
    for (const [file, said] of [['notes.txt', '--image notes.txt: not a PNG, JPEG, GIF or WebP image'], ['cut.png', '--image cut.png: the PNG image is cut short (18 bytes; its header needs 24)'], ['gone.png', '--image gone.png: no such file']]) {
      const run = await exec([...base, '--image', file], { TALLY_API_KEY: KEY });
      assert.equal(run.code, EXEC_EXIT.usage);
      assert.equal(run.stderr, `tally: ${said}\n`);
    }
  });
});
