/**
 * A model sometimes produces tool arguments that are not a JSON object. The agent answers such a
 * call with a tool error, but the call itself stays in the history and must be sent back in a form
 * the server accepts. Tally keeps the model's text under this key so nothing it wrote is lost.
 */
export const INVALID_ARGUMENTS_KEY = '_invalid_arguments';

/** The call's arguments as a JSON object: parsed, `{}` when empty, or the raw text wrapped. */
export function argumentsAsObject(raw: string): Record<string, unknown> {
  if (raw.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(raw);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through: invalid JSON
  }
  return { [INVALID_ARGUMENTS_KEY]: raw };
}

/** The call's arguments as JSON object text; valid input is returned byte-for-byte (prompt caching). */
export function argumentsAsJsonText(raw: string): string {
  if (raw.trim() === '') return '{}';
  try {
    const value: unknown = JSON.parse(raw);
    if (value && typeof value === 'object' && !Array.isArray(value)) return raw;
  } catch {
    // fall through: invalid JSON
  }
  return JSON.stringify({ [INVALID_ARGUMENTS_KEY]: raw });
}
