/**
 * What an agent's own words say about the state of the work, sentence by sentence: a conclusion
 * it reached ("`MultiValueField` is in django/forms/fields.py at line 966", "the existing tests
 * passed"), a question it left open ("Maybe the subfields should decide?"), or a plan for a
 * concrete next action ("I will run `pytest tests/forms_tests`"). Thinking aloud ("Wait, if…",
 * "So it returns None.", "I will correct this.") is none of them.
 */

export type SentenceRole = 'conclusion' | 'question' | 'plan';

/** Openers that say what the agent is about to do. */
const INTENT = /^(?:now,?\s+|next,?\s+|first,?\s+|then,?\s+|so,?\s+)?(?:i(?:'ll| will| need to| want to| should| must| have to| am going to|'m going to| can)|let(?:'s| me| us)|we(?:'ll| will| need to| should| can| must)|to (?:fix|verify|check|confirm|see)|time to)\b/i;
/** Words of doubt: the sentence is a guess, not a finding. */
const HEDGE = /\b(?:maybe|perhaps|possibly|probably|likely|might|i think|i guess|i wonder|i suspect|not sure|unclear|could be|wait)\b/i;
/** Openers of reasoning steps and fragments, which depend on the sentences around them. */
const FRAGMENT = /^(?:if|so|but|and|or|wait|else|also|hmm|ok|okay|actually|for example|e\.g\.|i\.e\.|i apologi[sz]e|sorry|i made a mistake|oops|because|since|when|while|however|although|though|therefore|thus|hence|otherwise|instead|no|yes|here|currently|in this case|in that case|this means|that means)\b/i;
/** A verb that states something about the code or a run. */
const STATES = /\b(?:is|are|was|were|has|have|had|returns?|returned|raises?|raised|fails?|failed|passes|passed|works|worked|confirms?|confirmed|shows?|showed|contains?|defines?|defined|handles?|handled|exists?|uses?|calls?|succeeds?|succeeded|broke|breaks|fixed|resolved|reproduces?|reproduced|matches|differs|decided|chose|opted)\b/i;
/** A choice the agent made: part of the state whatever it names. */
const DECISION = /^(?:i|we) (?:decided|chose|opted|settled on)\b/i;
/** Something a reader can find again: code in backticks, a path, a number, or a word naming the work. */
const ANCHOR = /`[^`]+`|[\w-]+\/[\w./-]+|\.\w{1,4}\b|\d|\b(?:tests?|fix|bug|issue|error|exception|script|change|patch|reproduc\w*|cause|function|class|method|field|file|module|line|output|traceback)\b/i;
/** What a plan must name to be an action: code, a path or a command. */
const CONCRETE = /`[^`]+`|[\w-]+\/[\w./-]+|\b[\w-]+\.(?:py|ts|js|rs|go|java|c|cpp|h|rb|php|json|toml|ya?ml|cfg|ini|sh|md|rst|txt)\b/;

/** Text the agent wrote, cut into sentences without code blocks or the frameworks' "THOUGHT:" label. */
export function sentencesOf(text: string): string[] {
  return text
    .replace(/```[\s\S]*?```/g, '\n')
    .replace(/^\s*(?:THOUGHT|DISCUSSION|Thought|Reasoning):\s*/gm, '')
    .split(/(?<=[.!?])\s+(?=[A-Z`"'(])|\n+/)
    .map((s) => s.trim().replace(/^(?:[-*•]\s+|\d+\.\s+)/, ''))
    .map((s) => s.replace(/^(?:great|good|perfect|excellent|ok|okay|alright|right|yes|now)[!,.]\s+/i, ''))
    .filter((s) => s.length > 12);
}

/** What a sentence of the agent's says, or undefined when it is thinking aloud. */
export function roleOf(sentence: string): SentenceRole | undefined {
  // Too long to be one finding, a lead-in to a list, a quote, or a piece cut from a sentence.
  if (sentence.length > 320 || /[:"']$/.test(sentence) || !/^[A-Z`"'(\[]/.test(sentence)) return undefined;
  if (/\?$/.test(sentence)) return FRAGMENT.test(sentence) || sentence.length < 20 ? undefined : 'question';
  if (INTENT.test(sentence)) return CONCRETE.test(sentence) ? 'plan' : undefined;
  if (FRAGMENT.test(sentence) || HEDGE.test(sentence)) return undefined;
  if (DECISION.test(sentence)) return 'conclusion';
  return STATES.test(sentence) && ANCHOR.test(sentence) ? 'conclusion' : undefined;
}

/** Words of a finding that settles something: a result, a cause, where something is. */
const WEIGHTY = /\b(?:confirm\w*|pass\w*|fail\w*|fix\w*|cause\w*|root|bug|issue|error|works|worked|broke\w*|already|defined|located|reproduc\w*|the problem)\b|\bis in\b|\bat line\b/i;

/**
 * The conclusions of one message of the agent's, at most `max`: those that settle something
 * first, in the order written. Long reasoning states many small facts on its way; the ones that
 * matter after it are few.
 */
export function conclusionsOf(sentences: readonly string[], max = 2): string[] {
  const found = sentences.filter((s) => roleOf(s) === 'conclusion');
  if (found.length <= max) return found;
  const weighty = found.filter((s) => WEIGHTY.test(s));
  const chosen = new Set([...weighty, ...found].slice(0, max));
  return found.filter((s) => chosen.has(s));
}
