/**
 * Messages between the extension host and the chat panel webview (F21).
 * The host owns the conversation; the webview renders what it is sent and sends intents.
 */
import type { CompactionEventRecord } from '../core/model/records';

export interface ChatToolCallView {
  callId: string;
  name: string;
  arguments: string;
  status: 'running' | 'awaiting_approval' | 'done' | 'error' | 'denied' | 'aborted';
  /** What the model sees of the result (truncated / reference). */
  resultPreview?: string;
  truncated?: boolean;
  offloadRef?: string;
  /** `allowForSession`: the tool's name when the card offers "Allow <tool> for this session". */
  approval?: { title: string; detail?: string; kind: 'command' | 'edit' | 'other'; allowForSession?: string };
}

export type ChatEntry =
  | { kind: 'user'; id: string; text: string }
  | { kind: 'assistant'; id: string; text: string; streaming?: boolean; toolCalls: ChatToolCallView[] }
  | { kind: 'compaction'; id: string; record: CompactionEventRecord }
  | { kind: 'notice'; id: string; text: string; level: 'info' | 'warning' | 'error' };

export interface ChatMeter {
  percent: number;
  used: number;
  effectiveWindow: number;
  compactAt: number;
  warning?: string;
}

export interface ChatState {
  sessionId?: string;
  sessionTitle?: string;
  entries: ChatEntry[];
  busy: boolean;
  meter?: ChatMeter;
  model?: { id: string; label: string };
  models: Array<{ id: string; label: string }>;
  sessions: Array<{ id: string; title: string; updatedAt: number }>;
  /** Shown when no model is configured or the workspace is untrusted. */
  banner?: string;
}

export type HostToChat =
  | { type: 'state'; state: ChatState }
  | { type: 'delta'; entryId: string; text: string };

export type ChatToHost =
  | { type: 'ready' }
  | { type: 'send'; text: string }
  | { type: 'cancel' }
  | { type: 'approval'; callId: string; approved: boolean; forSession?: boolean }
  | { type: 'newSession' }
  | { type: 'resumeSession'; sessionId: string }
  | { type: 'selectModel'; modelId: string }
  | { type: 'openResult'; refId: string }
  | { type: 'openInspector' };
