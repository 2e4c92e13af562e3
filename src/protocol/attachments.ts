/**
 * What the chat's composer and the host say about attachments: the completions offered after `#`
 * or `@`, what the user asks to attach, the chips above the input and the message's cost.
 */
import type { AttachmentInfo } from '../core/model/message';

export type AttachmentKind = AttachmentInfo['kind'];

/** What the user asks to attach. Paths are workspace-relative (`/`-separated) and resolved by the host. */
export type AttachTarget =
  | { kind: 'file'; path: string }
  | { kind: 'folder'; path: string }
  | { kind: 'selection' }
  /** Problems of one file, or of the whole workspace without a path. */
  | { kind: 'problems'; path?: string }
  | { kind: 'diff' }
  | { kind: 'terminal' }
  /** A resource a running MCP server listed. */
  | { kind: 'resource'; server: string; uri: string }
  /** An image pasted or dropped from outside the workspace: its bytes as base64 (checked where they arrive: type, size). */
  | { kind: 'image'; mediaType: string; data: string; name?: string }
  /** A web page the user typed the address of (http or https): fetched and made readable by the host. */
  | { kind: 'url'; url: string };

/** One line of the composer's completion list. `unavailable`: why it cannot be attached here (shown, not offered). */
export interface AttachCompletion {
  target: AttachTarget;
  label: string;
  detail?: string;
  unavailable?: string;
}

/** A chip above the input: what will be sent with the next message. */
export interface ChatAttachmentView {
  id: string;
  kind: AttachmentKind;
  label: string;
  /** The attachment item's tokens in the request that carries it (counted by the session's tokenizer). */
  tokens?: number;
  /** Why it cannot be sent; the chip shows it and the send leaves it out. */
  error?: string;
  /** Large content stored whole: `lines` in all, `sentLines` sent. */
  stored?: { lines: number; sentLines: number };
  /** The file is already in the working context: a short pointer is sent instead of its text. */
  inContext?: boolean;
  /** An image that would cost fewer tokens at a smaller size: that size and the item's tokens there. */
  smaller?: { width: number; height: number; tokens: number };
}

/** The bytes of an image chip to scale down in the webview, and the size to scale it to. */
export interface ImageToDownscale {
  id: string;
  mediaType: string;
  data: string;
  width: number;
  height: number;
}

/** The composer's cost line: "next request 12,480 tokens (this message 3,210) → 58% of the window". */
export interface ComposerCost {
  text: string;
  /** "a compaction will run first" */
  note?: string;
  /** The message's tokens (its text, attachments and their framing). */
  tokens: number;
  /** The request that will carry it, as the inspector will show it; absent for a command, which sends nothing. */
  requestTokens?: number;
  shareAfter: number;
}

/** Completion queries: at most this many characters, answered with at most `maxResults` lines. */
export const ATTACH_QUERY_LIMITS = { queryChars: 200, maxResults: 50, pathChars: 4096, dropUris: 50 } as const;

/** A pasted image's base64: at most the 5 MB an image may be (Anthropic's limit per image), and its name. */
export const PASTED_IMAGE_LIMITS = { base64Chars: Math.ceil((5 * 1024 * 1024) / 3) * 4, nameChars: 200 } as const;
