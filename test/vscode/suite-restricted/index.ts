import { runMochaInHost } from '../harness/mochaInHost';

/** Entry point VS Code calls in the extension host (Restricted Mode). */
export function run(): Promise<void> {
  return runMochaInHost(() => {
    require('./restricted.test');
    require('./lmToolsRestricted.test');
    require('./restrictedWrites.test');
    require('./attachmentsRestricted.test');
    require('./hooksRestricted.test');
  });
}
