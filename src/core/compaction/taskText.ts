/**
 * The task a user message asks for, without a worked demonstration of another task. Some agent
 * frameworks send, before the issue being solved, a whole solved example ("Here is a
 * demonstration of how to correctly accomplish this task … --- DEMONSTRATION --- … --- END OF
 * DEMONSTRATION ---"); quoted as the task, it would send a resumed agent after the example.
 */

/** A line that opens a demonstration block: `--- DEMONSTRATION ---`, `<demonstration>`, `[DEMONSTRATION]`, `BEGIN DEMONSTRATION`. */
const DEMO_START = /^[ \t]*(?:-{2,}|={2,}|#+|\[|<)?[ \t]*(?:begin(?:ning)?(?: of)?[ \t]+)?(?:example[ \t]+)?demonstrations?(?:[ \t]+(?:trajectory|example))?[ \t]*(?:-{2,}|={2,}|\]|>)?[ \t]*:?[ \t]*$/im;
/** A line that closes one: `--- END OF DEMONSTRATION ---`, `</demonstration>`, `[END DEMONSTRATION]`. */
const DEMO_END = /^[ \t]*(?:-{2,}|={2,}|#+|\[|<\/?)?[ \t]*(?:end(?: of)?[ \t]+(?:the[ \t]+)?(?:example[ \t]+)?demonstrations?|\/demonstrations?)[ \t]*(?:-{2,}|={2,}|\]|>)?[ \t]*$/im;
/** The sentence that introduces a demonstration, in the paragraph right before it. */
const DEMO_INTRO = /\b(?:demonstration|worked example|example (?:run|trajectory|session))\b/i;

/** Sections that frameworks put the task itself in. */
const TASK_SECTIONS = [/<pr_description>\s*([\s\S]*?)\s*<\/pr_description>/i, /<issue>\s*([\s\S]*?)\s*<\/issue>/i, /<task>\s*([\s\S]*?)\s*<\/task>/i, /^ISSUE:\s*\n([\s\S]*?)(?:\n\s*\n(?:INSTRUCTIONS|IMPORTANT|NOTE)\b[^\n]*:|$)/m];

/** The text with every demonstration block (and the paragraph introducing it) taken out. */
export function withoutDemonstrations(text: string): string {
  let rest = text;
  for (let guard = 0; guard < 20; guard++) {
    const start = DEMO_START.exec(rest);
    if (!start) break;
    const afterStart = start.index + start[0].length;
    const end = DEMO_END.exec(rest.slice(afterStart));
    // An opening line with no closing one: the demonstration runs to where the task begins, if it can be found.
    const stop = end ? afterStart + end.index + end[0].length : taskStartAfter(rest, afterStart);
    if (stop === undefined) break;
    rest = rest.slice(0, introStart(rest, start.index)) + rest.slice(stop);
  }
  return rest.replace(/\n{3,}/g, '\n\n').trim();
}

/** Where the paragraph right before a demonstration starts, when it introduces it. */
function introStart(text: string, at: number): number {
  const before = text.slice(0, at);
  const paragraph = before.lastIndexOf('\n\n');
  const from = paragraph < 0 ? 0 : paragraph + 2;
  return DEMO_INTRO.test(before.slice(from)) ? from : at;
}

function taskStartAfter(text: string, from: number): number | undefined {
  const rest = text.slice(from);
  const found = TASK_SECTIONS.map((re) => re.exec(rest)?.index).filter((i): i is number => i !== undefined);
  return found.length ? from + Math.min(...found) : undefined;
}

/** True when the message holds a demonstration and nothing else. */
export function isOnlyDemonstration(text: string): boolean {
  return DEMO_START.test(text) && withoutDemonstrations(text) === '';
}

/**
 * The task a user message states: its demonstrations taken out, and when what is left wraps the
 * task in a section frameworks use (`<pr_description>`, `<issue>`, `<task>`, `ISSUE:`), that section.
 */
export function taskTextOf(text: string): string {
  const rest = withoutDemonstrations(text);
  for (const section of TASK_SECTIONS) {
    const match = section.exec(rest);
    if (match?.[1]?.trim()) return match[1].trim();
  }
  return rest;
}
