/**
 * The texts of the diffs open for edits waiting for approval, each under an unguessable token that
 * its `tally-diff:` documents carry. Accept and Reject in a diff's title bar answer the approval
 * whose token the diff's address carries, and only while that approval is a pending edit: an
 * address made up elsewhere (a link, another extension, a typed command) names no token, so it
 * answers nothing. No `vscode` import.
 */
import { randomBytes } from 'crypto';

export type DiffSide = 'before' | 'after';

interface OpenDiff {
  callId: string;
  before: string;
  after: string;
}

/** The query of a diff side's address: `edit=<token>&side=<side>`. */
export function diffQuery(token: string, side: DiffSide): string {
  return new URLSearchParams({ edit: token, side }).toString();
}

function parseDiffQuery(query: string): { token?: string; side?: string } {
  const params = new URLSearchParams(query);
  return { token: params.get('edit') ?? undefined, side: params.get('side') ?? undefined };
}

export class PendingEditDiffs {
  private readonly byToken = new Map<string, OpenDiff>();

  constructor(private readonly newToken: () => string = () => randomBytes(24).toString('base64url')) {}

  /** Keeps an edit's texts under a new token (replacing any earlier diff of that call); returns the token. */
  add(callId: string, texts: { before: string; after: string }): string {
    this.remove(callId);
    const token = this.newToken();
    this.byToken.set(token, { callId, ...texts });
    return token;
  }

  /** The text of one side of the diff an address's query names ('' for an unknown one). */
  text(query: string): string {
    const { token, side } = parseDiffQuery(query);
    const diff = token ? this.byToken.get(token) : undefined;
    return side === 'before' ? (diff?.before ?? '') : (diff?.after ?? '');
  }

  /** The call whose diff an address's query names, or undefined when it names none open now. */
  callOf(query: string): string | undefined {
    const { token } = parseDiffQuery(query);
    return token ? this.byToken.get(token)?.callId : undefined;
  }

  /**
   * The call Accept or Reject from a diff answers: the one the address's token names, when its
   * approval is still pending and is an edit. `pendingKind` says what approval a call waits for.
   */
  answerable(query: string, pendingKind: (callId: string) => string | undefined): string | undefined {
    const callId = this.callOf(query);
    return callId !== undefined && pendingKind(callId) === 'edit' ? callId : undefined;
  }

  /** Forgets a call's diff; false when it had none. */
  remove(callId: string): boolean {
    let removed = false;
    for (const [token, diff] of this.byToken) {
      if (diff.callId !== callId) continue;
      this.byToken.delete(token);
      removed = true;
    }
    return removed;
  }

  clear(): void {
    this.byToken.clear();
  }
}
