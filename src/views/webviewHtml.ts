import { randomBytes } from 'crypto';
import * as vscode from 'vscode';

/** Folders a Tally webview may load from: the bundles and the CSS, nothing else. */
export function webviewRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, 'media', 'webview')];
}

/**
 * The HTML shell of a webview: a strict CSP (nonce for the one script, no inline script or style,
 * only this extension's files), the CSS, and the bundle. The bundle builds the DOM itself.
 */
export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, app: 'inspector' | 'chat', title: string): string {
  const nonce = randomBytes(16).toString('base64');
  const css = (name: string) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'webview', name));
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', `${app}.js`));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${css('common.css')}">
<link rel="stylesheet" href="${css(`${app}.css`)}">
<title>${title}</title>
</head>
<body>
<div id="app" data-app="${app}"></div>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}
