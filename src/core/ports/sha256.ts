/** An incremental SHA-256: fed slice by slice, so a large output is hashed between event-loop turns. */
export interface Sha256 {
  update(bytes: Uint8Array): void;
  /** The digest as lowercase hex. */
  hex(): string;
}
