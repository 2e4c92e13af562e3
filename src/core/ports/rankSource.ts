import type { EncodingName } from '../accounting/rankTable';

/**
 * Where the tokenizer gets an encoding's ranks: the bytes of its rank file (the binary form written
 * by node/accounting/rankFile.ts). The core builds the table from them; the source only reads.
 */
export interface RankSource {
  readSync(encoding: EncodingName): Uint8Array;
  /** The same bytes without blocking the event loop for long. */
  read(encoding: EncodingName): Promise<Uint8Array>;
}
