import type { RecordsChange } from './sessionRecords';

/**
 * What the results a running compaction stores changed for the inspector. A compaction of a long
 * session stores tens of thousands of results, one after another; told once per result, the
 * inspector was sent a patch per result (25,000 patches, 36 MB at 50,000 messages). They are held
 * here while the compaction runs and go with the next patch that is not a stored result, or with
 * the one that ends the compaction.
 */
export class HeldResults {
  private held?: RecordsChange;

  hold(change: RecordsChange): void {
    const held = (this.held ??= {});
    if (change.blobs) held.blobs = true;
    if (change.titles) held.titles = Object.assign(held.titles ?? {}, change.titles); // in place: one result's name at a time
  }

  /** Adds what is held to `into` (a name given in `into` wins) and holds nothing more. */
  releaseInto(into: RecordsChange): void {
    const held = this.held;
    if (!held) return;
    this.held = undefined;
    if (held.blobs) into.blobs = true;
    if (held.titles) into.titles = { ...held.titles, ...into.titles };
  }
}
