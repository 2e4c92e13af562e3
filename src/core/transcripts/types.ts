import type { Message } from '../model/message';

export type TranscriptFormat = 'openai' | 'anthropic' | 'swe-agent' | 'mini-swe-agent';

export interface ImportedTranscript {
  format: TranscriptFormat;
  messages: Message[];
  meta: {
    source: string;
    title: string;
    instanceId?: string;
    model?: string;
    warnings: string[];
    /** The run's final change as a unified diff, when the format records it (the submission). */
    finalChange?: string;
  };
}

/** A transcript that cannot be imported: names the file and the first problem found. */
export class TranscriptError extends Error {
  constructor(readonly file: string, readonly problem: string, readonly path?: string) {
    super(`${file}: ${path ? `${path}: ` : ''}${problem}`);
    this.name = 'TranscriptError';
  }
}
