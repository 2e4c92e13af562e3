/** Offloaded tool results: stored whole once, read back in byte ranges by `read_result`. */
export interface BlobInfo {
  /** The ref id given to the model (`read_result(ref_id)`). */
  id: string;
  sessionId: string;
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
  /** Undefined for an unknown ref; throws "… could not be read" when its file is damaged. */
  getBlobInfo(refId: string): Promise<BlobInfo | undefined>;
  readBlob(refId: string, offset: number, limit: number): Promise<BlobSlice>;
  listBlobs(sessionId: string): Promise<BlobInfo[]>;
}
