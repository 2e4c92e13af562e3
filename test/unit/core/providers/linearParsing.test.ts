/**
 * Text a server sends is parsed in one pass: no regular expression runs over a long server text,
 * where a backtracking pattern could hold the host for seconds per answer. Instead of timing the
 * parsers, the tests watch every regular expression run while they parse adversarial input: one
 * over more than WATCH_LIMIT characters is recorded and not run at all (so an old pattern cannot
 * hold the test), and the parser must still give the right answer.
 */
import { strict as assert } from 'assert';
import { readErrorBody } from '../../../../src/core/providers/classifyError';
import { parameterValue, parseOllamaShow } from '../../../../src/core/providers/models/modelListing';

const WATCH_LIMIT = 10_000;

/** Runs `parse` and returns what it returned and the lengths of the long texts regular expressions were asked to run over. */
function watchingPatterns<T>(parse: () => T): { result: T; longRuns: number[] } {
  const exec = RegExp.prototype.exec;
  const longRuns: number[] = [];
  RegExp.prototype.exec = function (this: RegExp, input: string) {
    if (String(input).length > WATCH_LIMIT) {
      longRuns.push(String(input).length);
      return null;
    }
    return exec.call(this, input);
  };
  try {
    return { result: parse(), longRuns };
  } finally {
    RegExp.prototype.exec = exec;
  }
}

describe('parsing what a server sends in one pass', () => {
  it("finds num_ctx in 200 KB of Ollama parameters built to make a pattern backtrack (blank lines, long runs of spaces), without a pattern over the text", () => {
    const parameters = [
      '\n'.repeat(60_000),
      ' '.repeat(60_000),
      '\nnum_ctx',
      '\n'.repeat(20_000),
      ' 2048\nstop                           "<|im_end|>"\n',
      '\t \n'.repeat(20_000),
      'num_ctx                        8192\n',
    ].join('');
    assert.ok(parameters.length > 200_000);
    const { result, longRuns } = watchingPatterns(() => parseOllamaShow({ parameters, model_info: { 'general.architecture': 'qwen2', 'qwen2.context_length': 32_768 } }));
    assert.deepEqual(result, { trainedWindow: 32_768, numCtx: 8192 });
    assert.deepEqual(longRuns, [], 'no regular expression may run over the parameters text');
  });

  it('reads a parameter as Ollama writes it: "name   value" on one line, the first one, CRLF or not', () => {
    assert.equal(parameterValue('stop "<|im_end|>"\r\nnum_ctx    16384\r\nnum_ctx 4096', 'num_ctx'), '16384');
    assert.equal(parameterValue('  num_ctx\t32768  ', 'num_ctx'), '32768');
    assert.equal(parameterValue('num_ctxx 5\nmy_num_ctx 6\nnum_ctx\n7', 'num_ctx'), undefined);
    assert.equal(parameterValue('', 'num_ctx'), undefined);
    assert.equal(parseOllamaShow({ parameters: 'num_ctx 12abc' }).numCtx, undefined);
  });

  it('reads the text of a 1 MB error page of unclosed "<" without a pattern over it, and still strips tags and spaces', () => {
    const page = `<html><body><h1>502   Bad Gateway</h1>${'<'.repeat(1_000_000)}`;
    const { result, longRuns } = watchingPatterns(() => readErrorBody(page));
    assert.deepEqual(longRuns, [], 'no regular expression may run over the page');
    assert.ok(result.message?.startsWith('502 Bad Gateway <<<'));
    assert.equal(readErrorBody('<p>a<b>b</b>\n\n c</p>').message, 'a b c');
  });
});
