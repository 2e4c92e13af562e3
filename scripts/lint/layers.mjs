// An ESLint rule that keeps Tally's layers apart. Each source file belongs to one layer (by its
// path); each layer lists the layers, npm packages and Node built-ins it may import. `npm test`
// runs it, so a violation fails the build.
import { builtinModules } from 'module';
import { dirname, relative, resolve, sep } from 'path';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..', '..');
const NODE_BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

/**
 * The layers, most specific path first. `imports` names the layers a file may import from;
 * `packages` the npm packages; `node` whether Node's built-in modules are allowed.
 */
export const LAYERS = [
  { name: 'core', path: 'src/core/', imports: ['core'], packages: ['js-tiktoken'], node: false, vscode: false },
  { name: 'node', path: 'src/node/', imports: ['core', 'node'], packages: ['sql.js', 'js-tiktoken', '@modelcontextprotocol/sdk'], node: true, vscode: false },
  { name: 'protocol', path: 'src/protocol/', imports: ['protocol', 'core'], packages: [], node: false, vscode: false },
  { name: 'host', path: 'src/host/', imports: ['host', 'core', 'protocol'], packages: [], node: false, vscode: false },
  { name: 'cli', path: 'src/cli/', imports: ['cli', 'core', 'node'], packages: [], node: true, vscode: false },
  { name: 'webview', path: 'webview/', imports: ['webview', 'protocol'], packages: ['@vscode/webview-ui-toolkit', 'markdown-it'], node: false, vscode: false },
  { name: 'vscode', path: 'src/', imports: ['vscode', 'host', 'core', 'node', 'protocol'], packages: ['*'], node: true, vscode: true },
];

export function layerOf(file) {
  const rel = relative(ROOT, file).split(sep).join('/');
  return LAYERS.find((layer) => rel.startsWith(layer.path));
}

function packageName(source) {
  const parts = source.split('/');
  return source.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Why `source`, imported from `file`, breaks the layers; undefined when it is allowed. */
export function violation(file, source) {
  const from = layerOf(file);
  if (!from) return undefined;
  if (source === 'vscode') return from.vscode ? undefined : `the ${from.name} layer must not import 'vscode'`;
  if (NODE_BUILTINS.has(source) || NODE_BUILTINS.has(source.split('/')[0])) {
    return from.node ? undefined : `the ${from.name} layer must not import Node's '${source}' (put it behind a port, with the Node implementation in src/node/)`;
  }
  if (source.startsWith('.')) {
    const target = layerOf(resolve(dirname(file), source));
    if (!target) return `'${source}' leaves the source tree`;
    return from.imports.includes(target.name) ? undefined : `the ${from.name} layer must not import from the ${target.name} layer ('${source}')`;
  }
  const pkg = packageName(source);
  return from.packages.includes('*') || from.packages.includes(pkg) ? undefined : `the ${from.name} layer must not import the package '${pkg}'`;
}

const rule = {
  meta: { type: 'problem', docs: { description: 'Keeps the layers apart' }, schema: [] },
  create(context) {
    const file = context.filename ?? context.getFilename();
    const check = (node) => {
      const source = node.source?.value;
      if (typeof source !== 'string') return;
      const message = violation(file, source);
      if (message) context.report({ node: node.source, message });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
      CallExpression(node) {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require' && node.arguments[0]?.type === 'Literal') {
          const message = violation(file, String(node.arguments[0].value));
          if (message) context.report({ node: node.arguments[0], message });
        }
      },
    };
  },
};

export default { rules: { imports: rule } };
