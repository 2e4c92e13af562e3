/**
 * JSON with comments and trailing commas, as VS Code writes its own files (`mcp.json`, settings):
 * comments and trailing commas are blanked outside strings, then the text is parsed as JSON, so a
 * mistake is reported at the same place JSON.parse would find it.
 */
export function parseJsonc(text: string): unknown {
  return JSON.parse(stripJsonc(text));
}

export function stripJsonc(text: string): string {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      const start = i;
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
      out.push(text.slice(start, i));
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') {
        out.push(' ');
        i++;
      }
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      out.push(text.slice(i, stop).replace(/[^\n]/g, ' '));
      i = stop;
    } else if (c === ',') {
      let j = i + 1;
      // A comma followed (past blanks and comments) by a closing bracket is a trailing one.
      for (;;) {
        while (j < text.length && /\s/.test(text[j])) j++;
        if (text[j] === '/' && text[j + 1] === '/') {
          while (j < text.length && text[j] !== '\n') j++;
        } else if (text[j] === '/' && text[j + 1] === '*') {
          const end = text.indexOf('*/', j + 2);
          j = end === -1 ? text.length : end + 2;
        } else break;
      }
      out.push(text[j] === '}' || text[j] === ']' ? ' ' : ',');
      i++;
    } else {
      out.push(c);
      i++;
    }
  }
  return out.join('');
}
