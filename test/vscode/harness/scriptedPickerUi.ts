import * as vscode from 'vscode';
import type { PickerUi } from '../../../src/commands/modelPicker';

/** Answers the picker's prompts from a script, and keeps what it was shown. */
export function scriptedUi(answers: { provider: string; baseUrl?: string; key?: string; model: string }) {
  const shown = { lists: [] as vscode.QuickPickItem[][], placeholders: [] as Array<string | undefined>, inputs: [] as Array<{ title: string; password?: boolean; prompt: string }>, info: [] as string[], warnings: [] as string[] };
  const ui: PickerUi = {
    async pick(items, options) {
      const list = await items;
      shown.lists.push(list);
      shown.placeholders.push(options.placeholder?.(list));
      const wanted = shown.lists.length === 1 ? answers.provider : answers.model;
      return list.find((i) => i.label === wanted);
    },
    async input(options) {
      shown.inputs.push({ title: options.title, password: options.password, prompt: options.prompt });
      return options.password ? answers.key : options.title.includes('address') ? answers.baseUrl : answers.model;
    },
    progress: (_title, task) => task(),
    info: (m) => shown.info.push(m),
    warn: (m) => shown.warnings.push(m),
  };
  return { ui, shown };
}
