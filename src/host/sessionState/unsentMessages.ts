import { MessageNotSent } from './sessionPorts';

/**
 * Messages the user sent that have not gone out: the one kept while no model is configured
 * (sent once one is chosen, or discarded), and those sent while the session resumes (shown as not
 * sent yet until it has). `changed`: the chat shows them, so each change is announced.
 */
export class UnsentMessages {
  private kept?: string;
  private resuming: string[] = [];

  constructor(private readonly changed: () => void) {}

  /** The message kept while no model is configured. */
  get pending(): string | undefined {
    return this.kept;
  }

  /** Messages sent while the session resumes. */
  get waiting(): readonly string[] {
    return this.resuming;
  }

  /** Keeps a message until a model is configured; a second one joins the first rather than replacing it. */
  keep(text: string): void {
    this.kept = this.kept === undefined ? text : `${this.kept}\n\n${text}`;
    this.changed();
  }

  /** The user chose Discard. */
  discard(): void {
    if (this.kept === undefined) return;
    this.kept = undefined;
    this.changed();
  }

  /** Takes the kept message to send it; `putBack` when it could not be sent. */
  take(): string | undefined {
    const text = this.kept;
    this.kept = undefined;
    if (text !== undefined) this.changed();
    return text;
  }

  putBack(text: string): void {
    this.kept ??= text;
    this.changed();
  }

  /**
   * Shows `text` as not sent yet while `resumed` runs; when it fails, the message was not sent
   * and its text goes back to the user (MessageNotSent carries it).
   */
  async whileResuming<T>(text: string, resumed: () => Promise<T>): Promise<T> {
    this.resuming = [...this.resuming, text];
    this.changed();
    try {
      return await resumed();
    } catch (error) {
      throw new MessageNotSent(`The message was not sent: ${error instanceof Error ? error.message : String(error)}`, text);
    } finally {
      const at = this.resuming.indexOf(text);
      this.resuming = this.resuming.filter((_, i) => i !== at);
      this.changed();
    }
  }
}
