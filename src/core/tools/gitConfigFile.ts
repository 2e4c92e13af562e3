/** One setting of a git config file: `section[.subsection].name`, section and name lowercased as git compares them. */
export interface GitConfigEntry {
  key: string;
  value: string;
}

const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\r';
const isKeyChar = (c: string) => /[A-Za-z0-9-]/.test(c);

/**
 * Parses git's config format in one pass over the text: `[section]`, `[section "subsection"]`
 * (and the old `[section.subsection]`), `#`/`;` comments, `key = value` or a bare `key` (true),
 * double-quoted parts, backslash escapes and lines continued with a trailing backslash. Returns
 * why the text is not valid config where git would refuse it too.
 */
export function parseGitConfig(text: string): GitConfigEntry[] | { reason: string } {
  const entries: GitConfigEntry[] = [];
  let section: string | undefined;
  let line = 1;
  let i = 0;
  const fail = (what: string) => ({ reason: `line ${line}: ${what}` });
  const skipComment = () => {
    while (i < text.length && text[i] !== '\n') i++;
  };
  while (i < text.length) {
    const c = text[i];
    if (c === '\n') {
      line++;
      i++;
    } else if (isSpace(c) || (i === 0 && c === '\uFEFF')) i++;
    else if (c === '#' || c === ';') skipComment();
    else if (c === '[') {
      i++;
      let name = '';
      while (i < text.length && (isKeyChar(text[i]) || text[i] === '.')) name += text[i++];
      if (!name) return fail('a section header without a name');
      let sub: string | undefined;
      while (i < text.length && isSpace(text[i])) i++;
      if (text[i] === '"') {
        i++;
        sub = '';
        for (; i < text.length && text[i] !== '"'; i++) {
          if (text[i] === '\n') return fail('a subsection name runs past the end of the line');
          if (text[i] === '\\') i++;
          sub += text[i] ?? '';
        }
        if (text[i] !== '"') return fail('an unterminated subsection name');
        i++;
      }
      if (text[i] !== ']') return fail('a section header without its closing ]');
      i++;
      section = sub === undefined ? name.toLowerCase() : `${name.toLowerCase()}.${sub}`;
    } else if (/[A-Za-z]/.test(c)) {
      if (section === undefined) return fail('a setting before any section');
      let name = '';
      while (i < text.length && isKeyChar(text[i])) name += text[i++];
      while (i < text.length && isSpace(text[i])) i++;
      let value = 'true';
      if (text[i] === '=') {
        i++;
        const parsed = readValue();
        if (typeof parsed !== 'string') return parsed;
        value = parsed;
      } else if (i < text.length && text[i] !== '\n' && text[i] !== '#' && text[i] !== ';') return fail(`unexpected "${text[i]}" after ${name}`);
      entries.push({ key: `${section}.${name.toLowerCase()}`, value });
    } else return fail(`unexpected "${c}"`);
  }
  return entries;

  /** A value up to the end of its (possibly continued) line; `i` is left at that line's end. */
  function readValue(): string | { reason: string } {
    let out = '';
    let kept = 0;
    let quoted = false;
    while (i < text.length && isSpace(text[i])) i++;
    for (; i < text.length; i++) {
      const c = text[i];
      if (c === '\n') {
        if (quoted) return fail('a quoted value runs past the end of the line');
        break;
      }
      if (!quoted && (c === '#' || c === ';')) {
        skipComment();
        break;
      }
      if (c === '"') {
        quoted = !quoted;
        continue;
      }
      if (c === '\\') {
        const next = text[++i];
        if (next === '\n' || (next === '\r' && text[i + 1] === '\n')) {
          if (next === '\r') i++;
          line++;
          continue;
        }
        const escaped = next === 'n' ? '\n' : next === 't' ? '\t' : next === 'b' ? '\b' : next === '"' || next === '\\' ? next : undefined;
        if (escaped === undefined) return fail('an unknown escape in a value');
        out += escaped;
        kept = out.length;
        continue;
      }
      // Outside quotes git keeps inner whitespace as one space per character.
      out += quoted || !isSpace(c) ? c : ' ';
      if (quoted || !isSpace(c)) kept = out.length;
    }
    if (quoted) return fail('an unterminated quoted value');
    return out.slice(0, kept);
  }
}
