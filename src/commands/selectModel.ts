import { readConfiguration } from '../config/readSettings';
import type { SessionController } from '../lifecycle/sessionController';
import type { ApiKeys } from '../secrets/apiKeys';
import { runModelPicker, vscodePickerUi, type PickerUi } from './modelPicker';

type Sessions = Pick<SessionController, 'whileChangingSettings' | 'reopenActive' | 'current' | 'shown'>;

/**
 * Tally: Select Model. The chat takes the chosen model at once: choosing the model the settings
 * already name (it was not available when the session opened) changes no setting, so the session
 * is opened again here when it still has no model.
 */
export async function selectModelCommand(sessions: Sessions, keys: ApiKeys, ui: PickerUi = vscodePickerUi): Promise<boolean> {
  const chosen = await sessions.whileChangingSettings(() => runModelPicker(keys, ui));
  if (!chosen) return false;
  const session = await sessions.current(); // after the reopen a changed setting asked for
  if (!session.chat && !session.replayLabel) {
    sessions.reopenActive('settings');
    await sessions.current();
  }
  return true;
}

/** VS Code's list of language models changed: a chat session still without a model opens again to take one. */
export function reopenWithoutModel(sessions: Sessions): void {
  const active = sessions.shown; // a session still resuming opens again once resumed
  if (active && !active.chat && !active.replayLabel && readConfiguration().provider === 'vscode-lm') sessions.reopenActive('settings');
}
