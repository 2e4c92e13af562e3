/** `npm start` and `npm test` build the bundles first: the build prints no warning that reads as a failure. */
import { strict as assert } from 'assert';
import * as path from 'path';
import { build } from 'esbuild';

const ROOT = path.resolve(__dirname, '..', '..', '..');
type BuildTargets = { buildTargets: Array<Record<string, unknown> & { entryPoints: string[] }>; common(production: boolean): Record<string, unknown> };
// The script is an ES module; esbuild would turn a plain import() into require().
const importModule = new Function('p', 'return import(p)') as (p: string) => Promise<BuildTargets>;

describe('the build', function () {
  this.timeout(120_000);
  it('bundles every entry point without a warning (nothing is written)', async () => {
    const { buildTargets, common } = await importModule(path.join(ROOT, 'scripts', 'buildTargets.mjs'));
    for (const target of buildTargets) {
      const result = await build({ ...common(false), ...target, absWorkingDir: ROOT, write: false, logLevel: 'silent', sourcemap: false });
      assert.deepEqual(result.warnings.map((w) => w.text), [], `${target.entryPoints[0]} builds without warnings`);
    }
  });
});
