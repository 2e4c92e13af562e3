import { closeSync, openSync, renameSync, rmSync, writeSync } from 'fs';

/** Text is handed to the file in pieces of about this many characters. */
const WRITE_CHARS = 1 << 20;

/**
 * The `--json` file of `tally replay`, written run by run as each run finishes: the same JSON as
 * `{ generatedAt, runs, totals }`, without ever holding it whole (a long run's items are hundreds
 * of megabytes of JSON, past the longest string V8 can make). Laid out as before down to each
 * request, which takes one line (indenting every item made the file four times as large). It is
 * written beside `path` and moved there once complete, so a failed replay leaves no cut-off file.
 */
export class ReplayJsonFile {
  private readonly partial: string;
  private readonly fd: number;
  private pending: string[] = [];
  private pendingChars = 0;
  private runs = 0;

  constructor(private readonly path: string, generatedAt: string) {
    this.partial = `${path}.${process.pid}.partial`;
    this.fd = openSync(this.partial, 'w');
    this.write(`{\n  "generatedAt": ${JSON.stringify(generatedAt)},\n  "runs": [`);
  }

  /** Appends one run (streamed down to each of its requests). */
  addRun(run: object): void {
    this.write(this.runs++ === 0 ? '\n    ' : ',\n    ');
    writePrettyJson((text) => this.write(text), run, 2, 2);
  }

  /** Writes the totals, closes the file and moves it into place. */
  finish(totals: unknown): void {
    this.write(this.runs === 0 ? ']' : '\n  ]');
    this.write(',\n  "totals": ');
    writePrettyJson((text) => this.write(text), totals, 1, Infinity); // small: laid out whole
    this.write('\n}');
    this.drain();
    closeSync(this.fd);
    renameSync(this.partial, this.path);
  }

  /** Closes and removes the unfinished file. */
  abandon(): void {
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
    rmSync(this.partial, { force: true });
  }

  private write(text: string): void {
    this.pending.push(text);
    this.pendingChars += text.length;
    if (this.pendingChars >= WRITE_CHARS) this.drain();
  }

  private drain(): void {
    if (this.pending.length === 0) return;
    writeSync(this.fd, this.pending.join(''));
    this.pending = [];
    this.pendingChars = 0;
  }
}

/**
 * Writes `value` at nesting `level`: objects and arrays down to `streamLevels` deep a member at a
 * time, laid out as `JSON.stringify(value, null, 2)` would, anything deeper on one line.
 */
export function writePrettyJson(write: (text: string) => void, value: unknown, level: number, streamLevels: number): void {
  if (streamLevels > 0 && typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON !== 'function') {
    const inner = '  '.repeat(level + 1);
    const outer = '  '.repeat(level);
    if (Array.isArray(value)) {
      if (value.length === 0) return write('[]');
      write('[');
      value.forEach((element, i) => {
        write(`${i === 0 ? '' : ','}\n${inner}`);
        writePrettyJson(write, isSkipped(element) ? null : element, level + 1, streamLevels - 1);
      });
      return write(`\n${outer}]`);
    }
    const members = Object.entries(value).filter(([, v]) => !isSkipped(v));
    if (members.length === 0) return write('{}');
    write('{');
    members.forEach(([key, member], i) => {
      write(`${i === 0 ? '' : ','}\n${inner}${JSON.stringify(key)}: `);
      writePrettyJson(write, member, level + 1, streamLevels - 1);
    });
    return write(`\n${outer}}`);
  }
  write(JSON.stringify(value) ?? 'null');
}

/** What JSON.stringify leaves out of an object (and writes as null in an array). */
function isSkipped(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}
