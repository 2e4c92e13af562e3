import { closeSync, openSync, renameSync, rmSync, writeSync } from 'fs';

/** Text is handed to the file in pieces of about this many characters. */
const WRITE_CHARS = 1 << 20;

/** A file written through a buffer of about WRITE_CHARS characters. */
class BufferedFile {
  readonly fd: number;
  private pending: string[] = [];
  private pendingChars = 0;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'w');
  }

  write(text: string): void {
    this.pending.push(text);
    this.pendingChars += text.length;
    if (this.pendingChars >= WRITE_CHARS) this.drain();
  }

  drain(): void {
    if (this.pending.length === 0) return;
    writeSync(this.fd, this.pending.join(''));
    this.pending = [];
    this.pendingChars = 0;
  }

  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
  }
}

/** Where a request's line starts in the file: inside `runs[i].requestsDetail`. */
const REQUEST_LINE = '\n        ';

/**
 * The `--json` file of `tally replay`, written as the replay goes: the same JSON as
 * `{ generatedAt, runs, totals }`, without ever holding it whole (a long run's items are hundreds
 * of megabytes of JSON, past the longest string V8 can make). Laid out as before down to each
 * request, which takes one line (indenting every item made the file four times as large). A run
 * started with `startRun` has each request written as soon as it is replayed (`addRequest`), so
 * its items need not stay in memory: its label and policy come first, then its requests, then its
 * other members when it ends. It is written beside `path` and moved there once complete, so a
 * failed replay leaves no cut-off file.
 */
export class ReplayJsonFile {
  private readonly out: BufferedFile;
  /** The members of the run being written request by request, written already. */
  private started?: Set<string>;
  private requestCount = 0;
  private runs = 0;
  private readonly itemJson = new WeakMap<object, string>();

  constructor(private readonly path: string, generatedAt: string) {
    this.out = new BufferedFile(`${path}.${process.pid}.partial`);
    this.out.write(`{\n  "generatedAt": ${JSON.stringify(generatedAt)},\n  "runs": [`);
  }

  /** Starts a run whose requests are written one by one as they are replayed; `first`: its members known now. */
  startRun(first: Record<string, unknown>): void {
    const write = (text: string) => this.out.write(text);
    write(this.runs++ === 0 ? '\n    {' : ',\n    {');
    for (const [key, value] of Object.entries(first)) {
      write(`\n      ${JSON.stringify(key)}: ${JSON.stringify(value)},`);
    }
    write('\n      "requestsDetail": [');
    this.started = new Set([...Object.keys(first), 'requestsDetail']);
    this.requestCount = 0;
  }

  /**
   * Writes one request of the started run (its items can then be let go). An item object met again
   * (a request repeats most of the previous one's) is written from its JSON kept.
   */
  addRequest(request: { items?: readonly object[] }): void {
    if (!this.started) throw new Error('a request written before its run was started');
    this.out.write(`${this.requestCount++ === 0 ? '' : ','}${REQUEST_LINE}${this.requestJson(request)}`);
  }

  /** `JSON.stringify(request)`, its items (its last member) from the JSON kept per item object. */
  private requestJson(request: { items?: readonly object[] }): string {
    const keys = Object.keys(request);
    if (!Array.isArray(request.items) || keys[keys.length - 1] !== 'items') return JSON.stringify(request);
    const { items, ...rest } = request;
    const head = JSON.stringify(rest);
    const list = items.map((item) => {
      let json = this.itemJson.get(item);
      if (json === undefined) this.itemJson.set(item, (json = JSON.stringify(item) ?? 'null'));
      return json;
    });
    return `${head.slice(0, -1)}${head === '{}' ? '' : ','}"items":[${list.join(',')}]}`;
  }

  /**
   * Appends one run, streamed down to each of its requests; or, for the run started, its members
   * not written yet (its `requestsDetail` is the requests given to `addRequest`).
   */
  addRun(run: object): void {
    const write = (text: string) => this.out.write(text);
    const started = this.started;
    if (!started) {
      write(this.runs++ === 0 ? '\n    ' : ',\n    ');
      return writePrettyJson(write, run, 2, 2);
    }
    write(this.requestCount === 0 ? ']' : '\n      ]');
    for (const [key, value] of Object.entries(run)) {
      if (started.has(key) || isSkipped(value)) continue;
      write(`,\n      ${JSON.stringify(key)}: `);
      writePrettyJson(write, value, 3, 1);
    }
    write('\n    }');
    this.started = undefined;
  }

  /** Writes the totals, closes the file and moves it into place. */
  finish(totals: unknown): void {
    const write = (text: string) => this.out.write(text);
    write(this.runs === 0 ? ']' : '\n  ]');
    write(',\n  "totals": ');
    writePrettyJson(write, totals, 1, Infinity); // small: laid out whole
    write('\n}');
    this.out.drain();
    this.out.close();
    renameSync(this.out.path, this.path);
  }

  /** Closes and removes the unfinished file. */
  abandon(): void {
    this.out.close();
    rmSync(this.out.path, { force: true });
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
