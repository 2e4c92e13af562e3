/**
 * Parses a Python literal (lists, dicts, tuples, strings, numbers, True/False/None), as SWE-agent
 * writes `tool_calls` with repr(). Never evaluates anything.
 */
export const MAX_LITERAL_DEPTH = 200;

export function parsePythonLiteral(source: string): unknown {
  let i = 0;
  let depth = 0;
  const fail = (what: string): never => {
    throw new Error(`${what} at character ${i} of the Python literal`);
  };
  const skip = () => {
    while (i < source.length && /\s/.test(source[i])) i++;
  };
  const parseString = (): string => {
    const quote = source[i];
    const triple = source.startsWith(quote.repeat(3), i);
    const end = triple ? quote.repeat(3) : quote;
    i += end.length;
    let out = '';
    while (i < source.length && !source.startsWith(end, i)) {
      const c = source[i++];
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = source[i++];
      const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0', a: '\x07', b: '\b', f: '\f', v: '\v', '\n': '' };
      if (e in simple) out += simple[e];
      else if (e === 'x') (out += String.fromCharCode(parseInt(source.slice(i, i + 2), 16))), (i += 2);
      else if (e === 'u') (out += String.fromCharCode(parseInt(source.slice(i, i + 4), 16))), (i += 4);
      else if (e === 'U') (out += String.fromCodePoint(parseInt(source.slice(i, i + 8), 16))), (i += 8);
      else out += `\\${e}`;
    }
    if (i >= source.length) fail('unterminated string');
    i += end.length;
    return out;
  };
  const parseValue = (): unknown => {
    skip();
    const c = source[i];
    if (c === '[' || c === '(' || c === '{') {
      if (++depth > MAX_LITERAL_DEPTH) fail(`nested more than ${MAX_LITERAL_DEPTH} levels deep`);
      const value = parseContainer(c);
      depth--;
      return value;
    }
    return parseScalar(c);
  };
  const parseContainer = (c: string): unknown => {
    if (c === '[' || c === '(') {
      const close = c === '[' ? ']' : ')';
      i++;
      const items: unknown[] = [];
      for (skip(); source[i] !== close; skip()) {
        items.push(parseValue());
        skip();
        if (source[i] === ',') i++;
        else if (source[i] !== close) fail(`expected "," or "${close}"`);
        skip();
      }
      i++;
      return items;
    }
    i++; // '{'
    const obj: Record<string, unknown> = {};
    for (skip(); source[i] !== '}'; skip()) {
      const key = parseValue();
      skip();
      if (source[i++] !== ':') fail('expected ":"');
      const value = parseValue();
      if (key !== '__proto__') obj[String(key)] = value;
      skip();
      if (source[i] === ',') i++;
      else if (source[i] !== '}') fail('expected "," or "}"');
      skip();
    }
    i++;
    return obj;
  };
  const parseScalar = (c: string): unknown => {
    if (c === "'" || c === '"') return parseString();
    for (const [word, value] of [['True', true], ['False', false], ['None', null]] as const) {
      if (source.startsWith(word, i)) {
        i += word.length;
        return value;
      }
    }
    const number = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(source.slice(i, i + 40));
    if (number) {
      i += number[0].length;
      return Number(number[0]);
    }
    return fail(c === undefined ? 'unexpected end' : `unexpected "${c}"`);
  };
  const value = parseValue();
  skip();
  if (i !== source.length) fail('trailing text');
  return value;
}
