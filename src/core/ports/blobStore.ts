/** Offloaded tool results: stored whole once, read back in byte ranges by `read_result`. */
export interface BlobInfo {
  /** The ref id given to the model (`read_result(ref_id)`). */
  id: string;
  /** The session that stored it: it owns the result (see resultOwnership.ts). */
  sessionId: string;
  /** Other sessions that may read it too (a fork reads its parent's results). */
  sharedWith?: readonly string[];
  toolName: string;
  toolCallId?: string;
  byteSize: number;
  lineCount: number;
  sha256: string;
  createdAt: number;
}

export interface BlobSlice {
  /** Exactly the bytes [offset, offset+length) of the stored output. */
  bytes: Uint8Array;
  offset: number;
  totalBytes: number;
}

export interface BlobStore {
  /** Stores a tool result whole (written once). Pass `measured` when the caller already hashed it. */
  putBlob(sessionId: string, blob: { toolName: string; toolCallId?: string; content: Uint8Array; measured?: { sha256: string; lineCount: number } }): Promise<BlobInfo>;
  /**
   * The result `refId` as the session `sessionId` sees it: undefined for an unknown ref and for a
   * result that session does not own; throws "… could not be read" when its file is damaged.
   */
  getBlobInfo(sessionId: string, refId: string): Promise<BlobInfo | undefined>;
  /** Throws "no stored result <ref> in this session" for an unknown ref or one `sessionId` does not own. */
  readBlob(sessionId: string, refId: string, offset: number, limit: number): Promise<BlobSlice>;
  listBlobs(sessionId: string): Promise<BlobInfo[]>;
  /**
   * Lets `toSessionId` read the results of `refIds` that `fromSessionId` may read (a fork reads
   * the results its messages refer to), and lists them among its results. Returns those shared;
   * an unknown ref, another session's, a damaged one or one stored by an earlier version is skipped.
   */
  shareBlobs(fromSessionId: string, toSessionId: string, refIds: readonly string[]): Promise<BlobInfo[]>;
}
