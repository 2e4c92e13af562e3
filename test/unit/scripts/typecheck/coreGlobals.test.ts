import { strict as assert } from 'assert';
import { join, resolve } from 'path';
import * as ts from 'typescript';

const ROOT = resolve(__dirname, '..', '..', '..', '..');
const CORE_CONFIG = join(ROOT, 'src', 'core', 'tsconfig.json');

/** Type-checks `code` as a file in src/core with core's own tsconfig; returns the errors' texts. */
function checkInCore(code: string): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(CORE_CONFIG, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(ts.flattenDiagnosticMessageText(d.messageText, '\n')) });
  assert.ok(config, 'src/core/tsconfig.json should parse');
  const planted = join(ROOT, 'src', 'core', 'planted.ts');
  const globals = config.fileNames.filter((f) => f.endsWith('.d.ts'));
  const host = ts.createCompilerHost(config.options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (file) => (resolve(file) === planted ? code : readFile(file));
  host.fileExists = (file) => resolve(file) === planted || ts.sys.fileExists(file);
  host.getSourceFile = (file, language, ...rest) => (resolve(file) === planted ? ts.createSourceFile(file, code, language) : getSourceFile(file, language, ...rest));
  const program = ts.createProgram([planted, ...globals], config.options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('the core is type-checked without Node’s types', function () {
  this.timeout(60_000);

  it('refuses Buffer, setImmediate and process in the core', () => {
    const errors = checkInCore("export const bytes = Buffer.from('x');\nsetImmediate(() => undefined);\nexport const pid = process.pid;\n");
    assert.equal(errors.length, 3, errors.join('\n'));
    assert.match(errors[0], /Buffer/);
    assert.match(errors[1], /setImmediate/);
    assert.match(errors[2], /process/);
  });

  it('allows the web-standard globals every JavaScript host has', () => {
    const code = [
      "export const bytes: Uint8Array = new TextEncoder().encode('x');",
      'export const text: string = new TextDecoder().decode(bytes);',
      "export const origin: string = new URL('https://example.test/a').origin;",
      'const controller = new AbortController();',
      'export const aborted: boolean = controller.signal.aborted;',
      'clearTimeout(setTimeout(() => undefined, 0));',
      "export const sent = (f: (url: string, init: RequestInit) => Promise<Response>) => f('u', { headers: new Headers({ a: 'b' }) }).then((r) => r.status);",
    ].join('\n');
    assert.deepEqual(checkInCore(code), []);
  });
});
