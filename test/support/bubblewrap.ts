import { findBubblewrap } from '../../src/node/sandbox/sandboxAvailability';

/** Skips the suite, saying why, where bubblewrap is missing (it is installed by `npm test` on Linux CI); elsewhere than Linux too. */
export function bubblewrapOrSkip(context: Mocha.Context): void {
  if (process.platform !== 'linux') context.skip();
  if (!findBubblewrap()) {
    console.warn('    skipped: bubblewrap (bwrap) is not installed; `apt-get install bubblewrap` runs these tests');
    context.skip();
  }
}
