/**
 * Before a reply's code is inserted into the editor: code with characters that are invisible or
 * reorder the text (the Trojan Source trick: it reads one way and runs another) is inserted only
 * after a modal question, which offers to insert it without those characters. No `vscode` import.
 */
import { hiddenSummary, withoutHidden } from '../../protocol/hiddenCharacters';
import { countOf } from '../../protocol/wording';

export const INSERT_WITHOUT_HIDDEN = 'Insert without them';
export const INSERT_ANYWAY = 'Insert anyway';
const LISTED_CODE_POINTS = 8;

/** Asks a modal question; the answer is one of `choices`, or undefined when the user cancels. */
export type AskModal = (message: string, detail: string, choices: string[]) => PromiseLike<string | undefined>;

/** The question for `code`, or undefined when it has no such characters. */
export function insertWarning(code: string): { message: string; detail: string } | undefined {
  const { count, codePoints } = hiddenSummary(code);
  if (!count) return undefined;
  const listed = codePoints.length > LISTED_CODE_POINTS ? `${codePoints.slice(0, LISTED_CODE_POINTS).join(', ')}, …` : codePoints.join(', ');
  return {
    message: `This code contains ${countOf(count, 'invisible or direction-changing character')} (${listed}). Insert anyway?`,
    detail: `Such characters can make code read differently from how it runs. The chat shows them as ⟨U+…⟩ markers. "${INSERT_WITHOUT_HIDDEN}" removes them; "${INSERT_ANYWAY}" inserts the code exactly as the reply has it.`,
  };
}

/** What to insert for `code`: itself when plain, otherwise what the user chose (undefined: insert nothing). */
export async function codeToInsert(code: string, ask: AskModal): Promise<string | undefined> {
  const warning = insertWarning(code);
  if (!warning) return code;
  const choice = await ask(warning.message, warning.detail, [INSERT_WITHOUT_HIDDEN, INSERT_ANYWAY]);
  if (choice === INSERT_ANYWAY) return code;
  if (choice === INSERT_WITHOUT_HIDDEN) return withoutHidden(code) || undefined;
  return undefined;
}
