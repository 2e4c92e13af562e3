/**
 * What the fetch_url tool needs from outside: one HTTP(S) GET at a time (redirects are the tool's
 * to follow, each checked again), and HTML made readable. The Node implementation checks the
 * address a name resolves to when it connects, and bounds size and time.
 */
export interface WebAccess {
  /** One GET of `url`, without following redirects; throws `WebFetchError` with the reason. */
  get(request: WebRequest): Promise<WebResponse>;
  /** An HTML page's main content as markdown, with its title (navigation, scripts and styles left out). */
  readable(html: string, url: string): Promise<ReadablePage>;
}

export interface WebRequest {
  url: string;
  /** The user allowed this host although it resolves to a loopback, private or otherwise local address. */
  allowPrivate: boolean;
  signal: AbortSignal;
}

export interface WebResponse {
  status: number;
  /** The Content-Type header as sent, if any. */
  contentType?: string;
  /** The Location header of a redirect. */
  location?: string;
  /** The body, whole (the size bound throws instead of cutting it). */
  body: Uint8Array;
  /** The address the connection went to (for the result's first line). */
  address?: string;
}

export interface ReadablePage {
  title?: string;
  markdown: string;
}

export type WebFetchFailure = 'private-address' | 'too-large' | 'connect-timeout' | 'timeout' | 'network' | 'cancelled';

/** Why a GET failed; `private-address` names the host and the address it resolved to, so the user can be asked. */
export class WebFetchError extends Error {
  constructor(
    message: string,
    readonly reason: WebFetchFailure,
    readonly detail: { host?: string; address?: string; range?: string } = {},
  ) {
    super(message);
  }
}
