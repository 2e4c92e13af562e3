/**
 * A count with its noun, as a person writes it: "1 token", "2 tokens", "1,024 lines". Every count
 * the chat, the inspector and their host logic put in words goes through here, so none says "1 tokens".
 */
export function countOf(n: number, singular: string, plural = `${singular}s`): string {
  const rounded = Math.round(n);
  return `${rounded.toLocaleString('en-US')} ${Math.abs(rounded) === 1 ? singular : plural}`;
}

/** The noun alone, for a count shown apart from it ("1,024 → 980 tokens"). */
export function nounFor(n: number, singular: string, plural = `${singular}s`): string {
  return Math.abs(Math.round(n)) === 1 ? singular : plural;
}
