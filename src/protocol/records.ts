/**
 * The stored records the webviews render, as they cross the wire. The webviews import them from
 * here, never from the core: the protocol is their only dependency on the host side.
 */
export type { CompactionEventRecord, CompactionTrigger, ComponentTokens, RemovalReason, RemovedItem, RequestItem, RequestUsageRecord as RequestUsageRecord } from '../core/model/records';
export type { SessionInfo } from '../core/ports/sessionStore';
export type { BlobInfo } from '../core/ports/blobStore';
/** Who owns a request's tokens, in stacking order, with their names: the same in every view. */
export { ownerTokens, TOKEN_OWNERS } from '../core/model/owners';
