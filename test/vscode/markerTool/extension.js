// A tool with a side effect outside the workspace: each run appends a line to
// <temp>/tally-lm-marker-<token>, so a test can count how often it ran.
const vscode = require('vscode');
const { appendFileSync } = require('fs');
const { tmpdir } = require('os');
const { join } = require('path');

function markerPath(token) {
  return join(tmpdir(), `tally-lm-marker-${String(token).replace(/[^\w-]/g, '')}`);
}

exports.markerPath = markerPath;

exports.activate = function activate(context) {
  context.subscriptions.push(
    vscode.lm.registerTool('tally_test_write_marker', {
      invoke(options) {
        appendFileSync(markerPath(options.input.token), 'ran\n');
        return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart('marker written')]);
      },
    }),
  );
  return { markerPath };
};
