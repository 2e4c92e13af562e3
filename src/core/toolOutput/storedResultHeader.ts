/**
 * The first line of a tool result whose output was stored whole (what the model reads), and the
 * reading of it back for the chat, which shows it in words rather than as the model's line.
 */
const fmt = (n: number) => n.toLocaleString('en-US');

export interface StoredResultFacts {
  byteSize: number;
  lineCount: number;
  toolName: string;
  isError: boolean;
  refId: string;
}

export function storedResultHeader(f: StoredResultFacts): string {
  return `[Tool result stored — ${fmt(f.byteSize)} bytes, ${fmt(f.lineCount)} lines from "${f.toolName}"${f.isError ? ' (error)' : ''}; ref_id="${f.refId}"]`;
}

const HEADER = /^\[Tool result stored — ([\d,]+) bytes, ([\d,]+) lines from "(.*)"( \(error\))?; ref_id="([^"]*)"\]$/;
const READ_HINT = /^\[Use read_result with ref_id="[^"]*", offset and limit \(bytes\) to read the full output\.\]$/;

/** A stored result's facts and the preview the model saw without the lines addressed to it, or undefined for any other content. */
export function readStoredResult(content: string): { facts: StoredResultFacts; preview: string } | undefined {
  const lines = content.split('\n');
  const m = HEADER.exec(lines[0]);
  if (!m) return undefined;
  const rest = lines.slice(1);
  if (rest.length && READ_HINT.test(rest[rest.length - 1])) rest.pop();
  const num = (s: string) => Number(s.replace(/,/g, ''));
  return { facts: { byteSize: num(m[1]), lineCount: num(m[2]), toolName: m[3], isError: Boolean(m[4]), refId: m[5] }, preview: rest.join('\n') };
}

export function readResultHint(refId: string): string {
  return `[Use read_result with ref_id="${refId}", offset and limit (bytes) to read the full output.]`;
}
