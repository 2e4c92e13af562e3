/**
 * A regular file with more than one hard link has other names that may lie outside the workspace
 * (a link cannot be told from the original), so reading one asks first and writing one is refused:
 * the write would change every name's contents.
 */

/** Why reading a file with `links` names asks, as the approval card says it. */
export function hardLinkedReadReason(relative: string, links: number): string {
  return `Asking because ${relative} has ${links} hard links, so it may be a file from outside the workspace.`;
}

/** Why a write to a file with `links` names is refused. */
export function hardLinkedWriteRefusal(relative: string, links: number): string {
  return `${relative} has ${links} hard links, so writing it could change a file outside the workspace; nothing was written`;
}
