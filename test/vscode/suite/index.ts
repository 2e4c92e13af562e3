import { runMochaInHost } from '../harness/mochaInHost';

/** Entry point VS Code calls in the extension host (trusted workspace). */
export function run(): Promise<void> {
  return runMochaInHost(() => {
    require('./extension.test');
    require('./lmTools.test');
    require('./workspaceSettings.test');
    require('./chatPendingRetry.test');
    require('./editorEdits.test');
    require('./protectedFiles.test');
    require('./requestItems.test');
    require('./modelPicker.test');
    require('./vscodeLmTurn.test');
    require('./windowFigures.test');
    require('./oneFigure.test');
    require('./toolFigure.test');
    require('./costLine.test');
    require('./demoModel.test');
    require('./readOnlyDocuments.test');
    require('./settingsReopen.test');
    require('./forkSession.test');
    require('./summaryEdit.test');
    require('./attachments.test');
    require('./subagents.test');
    require('./subagentToolChoice.test');
    require('./rewind.test');
    require('./commandSandbox.test');
    require('./confinedWrites.test');
    require('./namedPipes.test');
    require('./hooks.test');
    require('./mcpServers.test');
    require('./sessionSearch.test');
    require('./todoWebImage.test');
  });
}
