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

/** Thrown for input that cannot be an event stream (a line longer than the limit). */
export class SseSyntaxError extends Error {}

const MAX_LINE_CHARS = 16 * 1024 * 1024;

export class SseParser {
  private readonly decoder = new TextDecoder('utf-8');
  private buffer = '';
  /** The previous chunk ended in \r: a \n starting the next chunk belongs to that line break. */
  private pendingCr = false;
  private eventName?: string;
  private data: string[] = [];
  private hasData = false;
  private lastId?: string;

  /** Feeds bytes or text; returns the events completed by it. */
  push(chunk: Uint8Array | string): SseEvent[] {
    let text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.pendingCr = false;
    this.buffer += text;
    const events: SseEvent[] = [];
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const ch = this.buffer.charCodeAt(i);
      if (ch !== 10 && ch !== 13) continue;
      this.line(this.buffer.slice(start, i), events);
      if (ch === 13) {
        if (i + 1 < this.buffer.length) {
          if (this.buffer.charCodeAt(i + 1) === 10) i++;
        } else {
          this.pendingCr = true;
        }
      }
      start = i + 1;
    }
    this.buffer = this.buffer.slice(start);
    if (this.buffer.length > MAX_LINE_CHARS) throw new SseSyntaxError(`an event-stream line exceeded ${MAX_LINE_CHARS} characters`);
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
        this.hasData = true;
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
    this.hasData = false;
    this.eventName = undefined;
  }
}
