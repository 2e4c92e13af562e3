/**
 * An incremental server-sent events parser (WHATWG HTML §9.2 "event stream interpretation"):
 * lines end in \r\n, \n or \r (also when split across chunks), `:` starts a comment, several
 * `data:` lines join with \n, a blank line dispatches the event. Bytes are decoded as UTF-8 in
 * stream mode, so a character split across chunks survives.
 */

export interface SseEvent {
  /** The `event:` field; undefined means the default "message". */
  event?: string;
  data: string;
  id?: string;
}

/** Thrown for input that cannot be an event stream, or one event past the size limit. */
export class SseSyntaxError extends Error {}

/** One event grew past the limit the parser was given (its data lines, or one line, never ending). */
export class SseEventTooLargeError extends SseSyntaxError {
  constructor(readonly limitChars: number) {
    super(`an event-stream event exceeded ${limitChars} characters`);
  }
}

const DEFAULT_MAX_EVENT_CHARS = 16 * 1024 * 1024;

export class SseParser {
  private readonly decoder = new TextDecoder('utf-8');
  /** The line being read: text after the last line break. */
  private buffer = '';
  /** The previous chunk ended in \r: a \n starting the next chunk belongs to that line break. */
  private pendingCr = false;
  private eventName?: string;
  private data: string[] = [];
  /** Characters of `data` (with the \n that will join them). */
  private dataChars = 0;
  private hasData = false;
  private lastId?: string;

  /** `maxEventChars`: what one event may hold, its data lines and the line being read together. */
  constructor(private readonly maxEventChars = DEFAULT_MAX_EVENT_CHARS) {}

  /** Feeds bytes or text; returns the events completed by it. Only the new text is scanned. */
  push(chunk: Uint8Array | string): SseEvent[] {
    let text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.pendingCr = false;
    const events: SseEvent[] = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      if (ch !== 10 && ch !== 13) continue;
      const piece = text.slice(start, i);
      const line = this.buffer ? this.buffer + piece : piece;
      this.buffer = '';
      this.line(line, events);
      if (ch === 13) {
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === 10) i++;
        } else {
          this.pendingCr = true;
        }
      }
      start = i + 1;
    }
    if (start < text.length) this.buffer += text.slice(start);
    if (this.buffer.length + this.dataChars > this.maxEventChars) throw new SseEventTooLargeError(this.maxEventChars);
    return events;
  }

  /**
   * The stream ended. An event whose lines all arrived but whose closing blank line did not is
   * still delivered; an unterminated last line is a cut-off line and is dropped.
   */
  end(): SseEvent[] {
    const tail = this.decoder.decode();
    if (tail) this.buffer += tail;
    this.buffer = '';
    const events: SseEvent[] = [];
    this.dispatch(events);
    return events;
  }

  private line(line: string, events: SseEvent[]): void {
    if (line === '') {
      this.dispatch(events);
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        this.dataChars += value.length + 1;
        this.hasData = true;
        if (this.dataChars > this.maxEventChars) throw new SseEventTooLargeError(this.maxEventChars);
        break;
      case 'event':
        this.eventName = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastId = value;
        break;
      default:
        // `retry` and unknown fields carry nothing Tally needs.
        break;
    }
  }

  private dispatch(events: SseEvent[]): void {
    if (this.hasData) {
      const event: SseEvent = { data: this.data.join('\n') };
      if (this.eventName) event.event = this.eventName;
      if (this.lastId !== undefined) event.id = this.lastId;
      events.push(event);
    }
    this.data = [];
    this.dataChars = 0;
    this.hasData = false;
    this.eventName = undefined;
  }
}
