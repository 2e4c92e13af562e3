// ESLint rules that keep Tally's layers apart. Each source file belongs to one layer (by its
// path); each layer lists the layers, npm packages and Node built-ins it may import. A second rule
// keeps the construction of some classes in one file (every agent is made by the builder).
// `npm test` runs them, so a violation fails the build.
import { builtinModules } from 'module';
import { dirname, relative, resolve, sep } from 'path';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..', '..');
const NODE_BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

/**
 * The layers, most specific path first. `imports` names the layers a file may import from;
 * `packages` the npm packages; `node` whether Node's built-in modules are allowed; `vscode` whether
 * it may import 'vscode'. A layer is found by its path: renaming a folder changes its `path` only.
 * Every file under src/ and webview/ belongs to a layer (a new folder needs its line here).
 */
export const LAYERS = [
  // Pure TypeScript, runnable anywhere: the agent, the providers, the context.
  { name: 'core', path: 'src/core/', imports: ['core'], packages: ['js-tiktoken'], node: false, vscode: false },
  // Node implementations of core's ports.
  { name: 'node', path: 'src/node/', imports: ['core', 'node'], packages: ['sql.js', 'js-tiktoken', '@modelcontextprotocol/sdk', '@mozilla/readability', 'linkedom', 'turndown'], node: true, vscode: false },
  // Messages between host and webviews.
  { name: 'protocol', path: 'src/protocol/', imports: ['protocol', 'core'], packages: [], node: false, vscode: false },
  // What the views show, built from sessions.
  { name: 'host', path: 'src/host/', imports: ['host', 'core', 'protocol'], packages: [], node: false, vscode: false },
  // The `tally` command line.
  { name: 'cli', path: 'src/cli/', imports: ['cli', 'core', 'node'], packages: [], node: true, vscode: false },
  { name: 'webview', path: 'webview/', imports: ['webview', 'protocol'], packages: ['@vscode/webview-ui-toolkit', 'markdown-it'], node: false, vscode: false },
  // The VS Code layer, room by room, each importing only the rooms listed before it. Rooms that
  // need nothing of Node (settings, keys, vscode.lm) stay free of it.
  { name: 'config', path: 'src/config/', imports: ['config', 'core'], packages: [], node: false, vscode: true },
  { name: 'secrets', path: 'src/secrets/', imports: ['secrets', 'core'], packages: [], node: false, vscode: true },
  { name: 'vscodeLm', path: 'src/vscodeLm/', imports: ['vscodeLm', 'config', 'core'], packages: [], node: false, vscode: true },
  { name: 'workspace', path: 'src/workspace/', imports: ['workspace', 'core', 'node', 'host', 'protocol'], packages: [], node: true, vscode: true },
  // The command sandbox's settings and status bar.
  { name: 'sandbox', path: 'src/sandbox/', imports: ['sandbox', 'config', 'core', 'node'], packages: [], node: true, vscode: true },
  // The MCP servers Tally runs itself in the editor: their settings, the allow-once prompt.
  { name: 'mcp', path: 'src/mcp/', imports: ['mcp', 'config', 'core', 'node'], packages: [], node: true, vscode: true },
  // The model and agent factories: how a session's agent is made.
  { name: 'agents', path: 'src/agents/', imports: ['agents', 'mcp', 'sandbox', 'workspace', 'vscodeLm', 'secrets', 'config', 'core', 'node', 'host', 'protocol'], packages: [], node: true, vscode: true },
  // Opening, resuming and reopening sessions; the store's host.
  { name: 'lifecycle', path: 'src/lifecycle/', imports: ['lifecycle', 'agents', 'workspace', 'vscodeLm', 'secrets', 'config', 'core', 'node', 'host', 'protocol'], packages: [], node: false, vscode: true },
  { name: 'attachments', path: 'src/attachments/', imports: ['attachments', 'workspace', 'core', 'host', 'protocol'], packages: [], node: true, vscode: true },
  { name: 'views', path: 'src/views/', imports: ['views', 'attachments', 'lifecycle', 'workspace', 'config', 'core', 'host', 'protocol'], packages: [], node: true, vscode: true },
  { name: 'commands', path: 'src/commands/', imports: ['commands', 'views', 'attachments', 'lifecycle', 'agents', 'mcp', 'sandbox', 'workspace', 'vscodeLm', 'config', 'secrets', 'core', 'node', 'host', 'protocol'], packages: [], node: true, vscode: true },
  // The entry point wires every room together.
  { name: 'extension', path: 'src/extension.ts', imports: ['commands', 'views', 'attachments', 'lifecycle', 'agents', 'mcp', 'sandbox', 'workspace', 'vscodeLm', 'secrets', 'config', 'core', 'node', 'host', 'protocol'], packages: [], node: false, vscode: true },
];

/** Classes constructed in one file only: every agent is made by the builder. */
export const CONSTRUCTED_ONLY_IN = {
  AgentSession: { file: 'src/core/agent/build/buildAgent.ts', instead: 'describe the agent (AgentBuild) and call buildAgent' },
};

function repoPath(file) {
  return relative(ROOT, file).split(sep).join('/');
}

export function layerOf(file) {
  const rel = repoPath(file);
  // An import names a file without its extension.
  return LAYERS.find((layer) => rel.startsWith(layer.path) || `${rel}.ts` === layer.path);
}

/** Why `file` breaks the rule that every source file has a layer; undefined when it has one or is not a source file. */
export function unlayered(file) {
  const rel = repoPath(file);
  if (!rel.startsWith('src/') && !rel.startsWith('webview/')) return undefined;
  return layerOf(file) ? undefined : `${rel} belongs to no layer: give its folder a line in scripts/lint/layers.mjs`;
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
    if (!target) return unlayered(resolve(dirname(file), source)) ? `'${source}' is in no layer` : `'${source}' leaves the source tree`;
    return from.imports.includes(target.name) ? undefined : `the ${from.name} layer must not import from the ${target.name} layer ('${source}')`;
  }
  const pkg = packageName(source);
  return from.packages.includes('*') || from.packages.includes(pkg) ? undefined : `the ${from.name} layer must not import the package '${pkg}'`;
}

const importsRule = {
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
      Program(node) {
        const message = unlayered(file);
        if (message) context.report({ node, message });
      },
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

const constructedOnceRule = {
  meta: { type: 'problem', docs: { description: 'Keeps the construction of some classes in one file' }, schema: [] },
  create(context) {
    const rel = repoPath(context.filename ?? context.getFilename());
    return {
      NewExpression(node) {
        const name = node.callee.type === 'Identifier' ? node.callee.name : undefined;
        const home = name && Object.hasOwn(CONSTRUCTED_ONLY_IN, name) ? CONSTRUCTED_ONLY_IN[name] : undefined;
        if (home && rel !== home.file) context.report({ node, message: `only ${home.file} constructs ${name}: ${home.instead}` });
      },
    };
  },
};

export default { rules: { imports: importsRule, 'constructed-once': constructedOnceRule } };
