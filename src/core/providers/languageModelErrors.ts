import { isContextTooLong } from './classifyError';
import { ProviderError } from './errors';

/** What Tally reads from an error thrown by VS Code's Language Model API. */
export interface LanguageModelFailure {
  message: string;
  /** `LanguageModelError.code` ('NoPermissions', 'Blocked', 'NotFound'); undefined for other errors. */
  code?: string;
}

/**
 * The ProviderError for a failed `sendRequest`. The prompt-too-long test is the one the HTTP
 * providers use, so a message that merely mentions "context" is not taken for an overflow.
 */
export function classifyLanguageModelError(failure: LanguageModelFailure): ProviderError {
  const { message, code } = failure;
  if (isContextTooLong({ message, code })) return new ProviderError('context_too_long', message, { code });
  if (code === 'NoPermissions') return new ProviderError('auth', `No permission to use this model: ${message}`, { code });
  if (code === 'Blocked') return new ProviderError('rate_limited', `The model is blocked or over quota: ${message}`, { retryable: false, code });
  if (code === 'NotFound') return new ProviderError('bad_request', `The model is not available: ${message}`, { code });
  return new ProviderError('server', message, { code });
}
