// A scripted chat model behind VS Code's language model API (the `chatProvider` proposal in
// VS Code 1.100). First answer: a read_file tool call. Once the request carries a tool result:
// text quoting it. Every request is kept, so a test can check what the model was sent. All parts
// go to index 0: in 1.100 each index is a separate response, and only the first one is read.
const vscode = require('vscode');

const requests = [];

function partsOf(message) {
  return Array.isArray(message.content) ? message.content : [];
}

function toolResultText(messages) {
  for (const message of messages) {
    for (const part of partsOf(message)) {
      if (part && typeof part.callId === 'string' && Array.isArray(part.content)) {
        return part.content.map((c) => (c && typeof c.value === 'string' ? c.value : '')).join('');
      }
    }
  }
  return undefined;
}

const provider = {
  async provideLanguageModelResponse(messages, options, extensionId, progress) {
    const result = toolResultText(messages);
    requests.push({ extensionId, messages: messages.length, tools: (options.tools || []).map((t) => t.name), toolResult: result });
    if (result === undefined) {
      progress.report({ index: 0, part: new vscode.LanguageModelTextPart('Reading the file. ') });
      progress.report({ index: 0, part: new vscode.LanguageModelToolCallPart('lm-call-1', 'read_file', { path: 'src/math.ts' }) });
      return;
    }
    const firstLine = result.split('\n').find((line) => line.includes('function')) || result.slice(0, 60);
    progress.report({ index: 0, part: new vscode.LanguageModelTextPart(`[scripted vscode-lm model] The file starts with: ${firstLine.trim()}`) });
  },
  async provideTokenCount(text) {
    const value = typeof text === 'string' ? text : JSON.stringify(text.content);
    return Math.ceil(value.length / 4);
  },
};

// The model is registered only while a test asks for it: vscode-lm is Tally's default provider,
// and a model that is always there would change what other tests see.
exports.activate = function activate(context) {
  let registration;
  const unregister = () => {
    registration?.dispose();
    registration = undefined;
  };
  context.subscriptions.push({ dispose: unregister });
  return {
    requests,
    register() {
      registration ??= vscode.lm.registerChatModelProvider('scripted', provider, {
        vendor: 'tally-test',
        name: 'Scripted test model',
        family: 'scripted',
        version: '1',
        maxInputTokens: 60000,
        maxOutputTokens: 4000,
        isUserSelectable: true,
        capabilities: { toolCalling: true },
      });
    },
    unregister,
  };
};
