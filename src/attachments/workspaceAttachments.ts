import * as path from 'path';
import * as vscode from 'vscode';
import type { ResourceAttachments } from '../core/mcp/resourceSource';
import type { WebAccess } from '../core/ports/webAccess';
import { readWebPage } from './webPageAttachment';
import type { AttachmentInfo } from '../core/model/message';
import type { ResolvedPath, Workspace } from '../core/ports/workspace';
import type { AttachmentSources } from '../host/chat/attachmentDraft';
import { ATTACH_QUERY_LIMITS, type AttachCompletion, type AttachTarget } from '../protocol/attachments';
import { countOf } from '../protocol/wording';
import { VscodeWorkspace } from '../workspace/vscodeWorkspace';
import { workingTreeChanges } from './gitChanges';
import type { TerminalOutputs } from './terminalOutputs';

/** Largest file attached (it is stored whole and a preview sent past the offload threshold). */
const MAX_FILE_BYTES = 32 * 1024 * 1024;
/** Files listed for completion, at most; dependencies and git's own folder are left out. */
const MAX_LISTED_FILES = 5_000;
const LISTING_EXCLUDE = '**/{node_modules,.git}/**';
/** The listing is read again after this long (completion asks on every keystroke). */
const LISTING_FRESH_MS = 5_000;
const MAX_PROBLEMS = 500;
const fmt = (n: number) => n.toLocaleString('en-US');

function folders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
}

/**
 * What the chat can attach from this window: files and folders of the workspace (through the
 * Workspace port's confinement: no path outside the folders, no link leading out), the active
 * editor's selection, problems, the working tree's changes and the last terminal command's output.
 */
export class WorkspaceAttachments implements AttachmentSources {
  private listing?: { at: number; uris: Promise<vscode.Uri[]> };

  constructor(
    private readonly terminals: TerminalOutputs,
    private readonly resources?: ResourceAttachments,
    private readonly web?: WebAccess,
  ) {}

  private workspaceFiles(): Promise<vscode.Uri[]> {
    const now = Date.now();
    if (!this.listing || now - this.listing.at > LISTING_FRESH_MS) {
      const uris = Promise.resolve(vscode.workspace.findFiles('**/*', LISTING_EXCLUDE, MAX_LISTED_FILES));
      this.listing = { at: now, uris };
      uris.catch(() => (this.listing = undefined));
    }
    return this.listing.uris;
  }

  private workspace(): Workspace {
    return new VscodeWorkspace({ folders: folders(), trusted: vscode.workspace.isTrusted });
  }

  /** A path as the chips name it: relative to its folder, with the folder's name first in a multi-root window (as given). */
  private displayPath(resolved: ResolvedPath, input: string): string {
    return folders().length <= 1 ? resolved.relative : input.replace(/\\/g, '/').replace(/^(?:\.\/)+/, '');
  }

  async complete(query: string): Promise<AttachCompletion[]> {
    const q = query.trim().toLowerCase();
    const matches = (text: string) => !q || text.toLowerCase().includes(q);
    const out: AttachCompletion[] = [];
    const editor = vscode.window.activeTextEditor;
    if (editor && !editor.selection.isEmpty) {
      out.push({ target: { kind: 'selection' }, label: 'Selection', detail: selectionLabel(editor) });
    }
    const active = editor && this.relativeOf(editor.document.uri);
    if (active) out.push({ target: { kind: 'problems', path: active }, label: `Problems in ${path.posix.basename(active)}`, detail: problemCount(vscode.languages.getDiagnostics(editor.document.uri)) });
    out.push({ target: { kind: 'problems' }, label: 'Problems in the workspace', detail: problemCount(vscode.languages.getDiagnostics().flatMap(([, d]) => d)) });
    out.push(vscode.workspace.isTrusted
      ? { target: { kind: 'diff' }, label: 'Working tree changes', detail: 'git diff' }
      : { target: { kind: 'diff' }, label: 'Working tree changes', unavailable: 'not in Restricted Mode: git would read the repository\'s own configuration' });
    const terminal = this.terminals.lastOutput;
    out.push(!this.terminals.supported
      ? { target: { kind: 'terminal' }, label: 'Terminal output', unavailable: 'this VS Code does not expose terminal output to extensions' }
      : terminal
        ? { target: { kind: 'terminal' }, label: 'Terminal output', detail: terminal.commandLine.slice(0, 80) }
        : { target: { kind: 'terminal' }, label: 'Terminal output', unavailable: 'no command has finished in a terminal with shell integration since Tally started' });
    const address = query.trim();
    // An address typed after # is offered first, as typed: the page is fetched when it is chosen.
    if (/^https?:\/\/\S+$/i.test(address)) return [{ target: { kind: 'url', url: address }, label: address, detail: this.web ? 'fetch this web page' : undefined, unavailable: this.web ? undefined : 'web pages cannot be fetched here' }];
    for (const r of this.resources?.listed() ?? []) out.push({ target: { kind: 'resource', server: r.server, uri: r.uri }, label: r.name, detail: `MCP server ${r.server} · ${r.uri}` });
    const fixed = out.filter((c) => matches(c.label) || matches(c.detail ?? ''));
    const files = await this.matchingPaths(q, ATTACH_QUERY_LIMITS.maxResults - fixed.length);
    return [...fixed, ...files].slice(0, ATTACH_QUERY_LIMITS.maxResults);
  }

  /** Files and folders whose path holds the query, folders first, shorter paths first. */
  private async matchingPaths(q: string, max: number): Promise<AttachCompletion[]> {
    if (max <= 0 || folders().length === 0) return [];
    const uris = await this.workspaceFiles();
    const files = new Set<string>();
    const dirs = new Set<string>();
    for (const uri of uris) {
      const rel = this.relativeOf(uri);
      if (!rel) continue;
      files.add(rel);
      for (let dir = path.posix.dirname(rel); dir !== '.' && dir !== '/'; dir = path.posix.dirname(dir)) dirs.add(dir);
    }
    const hit = (p: string) => !q || p.toLowerCase().includes(q);
    const byLength = (a: string, b: string) => a.length - b.length || (a < b ? -1 : 1);
    const folderHits = [...dirs].filter(hit).sort(byLength).map((p): AttachCompletion => ({ target: { kind: 'folder', path: p }, label: `${p}/`, detail: 'folder listing' }));
    const fileHits = [...files].filter(hit).sort(byLength).map((p): AttachCompletion => ({ target: { kind: 'file', path: p }, label: p }));
    return [...folderHits.slice(0, Math.ceil(max / 4)), ...fileHits].slice(0, max);
  }

  /** The workspace-relative path of a file inside a folder (the folder's name first in a multi-root window), or undefined. */
  private relativeOf(uri: vscode.Uri): string | undefined {
    if (uri.scheme !== 'file') return undefined;
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    if (!folder) return undefined;
    const rel = path.relative(folder.uri.fsPath, uri.fsPath).split(path.sep).join('/');
    if (!rel || rel.startsWith('..')) return undefined;
    return folders().length > 1 ? `${path.basename(folder.uri.fsPath)}/${rel}` : rel;
  }

  async read(target: AttachTarget): Promise<{ info: AttachmentInfo; content: string | Uint8Array }> {
    switch (target.kind) {
      case 'image':
        throw new Error('A pasted image is read by the chat, not from the workspace.');
      case 'file':
        return this.readFile(target.path);
      case 'folder':
        return this.readFolder(target.path);
      case 'selection':
        return this.readSelection();
      case 'problems':
        return this.readProblems(target.path);
      case 'diff': {
        const text = await workingTreeChanges(folders(), vscode.workspace.isTrusted);
        return { info: { kind: 'diff', label: 'Working tree changes' }, content: text };
      }
      case 'resource':
        return this.readResource(target.server, target.uri);
      case 'url':
        if (!this.web) throw new Error('Web pages cannot be fetched here.');
        return readWebPage(this.web, target.url);
      case 'terminal': {
        if (!this.terminals.supported) throw new Error('This VS Code does not expose terminal output to extensions.');
        const last = this.terminals.lastOutput;
        if (!last) throw new Error('No command has finished in a terminal with shell integration since Tally started.');
        const exit = last.exitCode === undefined ? '' : ` (exit code ${last.exitCode})`;
        const cut = last.omitted ? `[the first ${fmt(last.omitted)} characters are left out]\n` : '';
        return { info: { kind: 'terminal', label: `Terminal output: ${last.commandLine.slice(0, 60)}` }, content: `$ ${last.commandLine}${exit}\n${cut}${last.output}` };
      }
    }
  }

  /** Only a resource its server listed: the webview's message never makes a server read an address it chose. */
  private async readResource(server: string, uri: string): Promise<{ info: AttachmentInfo; content: string }> {
    const listed = this.resources?.listed().find((r) => r.server === server && r.uri === uri);
    if (!listed || !this.resources) throw new Error(`The MCP server "${server}" does not list the resource ${uri} (it is not running, or no longer lists it).`);
    const read = await this.resources.read(server, uri);
    return { info: { kind: 'resource', label: `${server}: ${listed.name}`, server, uri }, content: read.text };
  }

  private async resolve(input: string): Promise<{ ws: Workspace; resolved: ResolvedPath }> {
    const ws = this.workspace();
    try {
      return { ws, resolved: await ws.resolve(input, { mustExist: true }) };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(/no such file|ENOENT|does not exist|not found/i.test(reason) ? `${input} no longer exists.` : reason);
    }
  }

  private async readFile(input: string): Promise<{ info: AttachmentInfo; content: Uint8Array }> {
    const { ws, resolved } = await this.resolve(input);
    const kind = await ws.kind(resolved);
    if (kind === undefined) throw new Error(`${input} no longer exists.`);
    if (kind !== 'file') throw new Error(`${input} is not a file.`);
    const { bytes, size, links } = await ws.readFile(resolved, MAX_FILE_BYTES);
    if (links > 1) throw new Error(`${input} has ${links} names (hard links); one may lie outside the workspace, so it is not attached.`);
    if (size > MAX_FILE_BYTES) throw new Error(`${input} is ${fmt(size)} bytes; files over ${fmt(MAX_FILE_BYTES)} bytes are not attached.`);
    const shown = this.displayPath(resolved, input);
    return { info: { kind: 'file', label: shown, path: shown }, content: bytes };
  }

  private async readFolder(input: string): Promise<{ info: AttachmentInfo; content: string }> {
    const { ws, resolved } = await this.resolve(input);
    if ((await ws.kind(resolved)) !== 'directory') throw new Error(`${input} is not a folder.`);
    const entries = await ws.list(resolved.absolute);
    const shown = this.displayPath(resolved, input);
    const lines = entries.map((e) => (e.kind === 'directory' ? `${e.name}/` : e.kind === 'symlink' ? `${e.name} (link)` : e.name));
    return { info: { kind: 'folder', label: `${shown}/`, path: shown }, content: `${lines.length} entries\n${lines.join('\n')}` };
  }

  private async readSelection(): Promise<{ info: AttachmentInfo; content: string }> {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.selection.isEmpty) throw new Error('Select some text in an editor first.');
    const doc = editor.document;
    const rel = this.relativeOf(doc.uri);
    if (!rel && doc.uri.scheme !== 'untitled') throw new Error(`${path.basename(doc.uri.fsPath)} is outside the workspace folders; only selections in workspace files (or untitled editors) are attached.`);
    const { start, end } = editor.selection;
    const endLine = end.character === 0 && end.line > start.line ? end.line : end.line + 1;
    const name = rel ?? path.basename(doc.uri.path);
    const info: AttachmentInfo = { kind: 'selection', label: `${path.posix.basename(name)}:${start.line + 1}-${endLine}`, startLine: start.line + 1, endLine };
    if (rel) info.path = rel;
    return { info, content: `${name} lines ${start.line + 1}-${endLine}${doc.languageId ? ` (${doc.languageId})` : ''}\n${doc.getText(editor.selection)}` };
  }

  private async readProblems(input: string | undefined): Promise<{ info: AttachmentInfo; content: string }> {
    let entries: Array<[vscode.Uri, readonly vscode.Diagnostic[]]>;
    let label: string;
    if (input !== undefined) {
      const { resolved } = await this.resolve(input);
      const uri = vscode.Uri.file(resolved.absolute);
      entries = [[uri, vscode.languages.getDiagnostics(uri)]];
      label = `Problems in ${path.posix.basename(input)}`;
    } else {
      entries = vscode.languages.getDiagnostics();
      label = 'Problems in the workspace';
    }
    const lines: string[] = [];
    let total = 0;
    for (const [uri, diagnostics] of entries) {
      const rel = this.relativeOf(uri);
      if (!rel) continue; // problems of files outside the workspace are not attached
      for (const d of diagnostics) {
        total++;
        if (lines.length >= MAX_PROBLEMS) continue;
        const code = typeof d.code === 'object' ? d.code.value : d.code;
        lines.push(`${rel}:${d.range.start.line + 1}:${d.range.start.character + 1} ${severityName(d.severity)}: ${d.message.replace(/\s+/g, ' ')}${d.source ? ` (${d.source}${code !== undefined ? ` ${code}` : ''})` : ''}`);
      }
    }
    if (total === 0) throw new Error(`There are no problems to attach${input !== undefined ? ` in ${input}` : ''}.`);
    const more = total > lines.length ? `\n[${fmt(total - lines.length)} more not listed]` : '';
    return { info: input !== undefined ? { kind: 'problems', label, path: input } : { kind: 'problems', label }, content: `${countOf(total, 'problem')}\n${lines.join('\n')}${more}` };
  }

  async dropped(raw: string): Promise<AttachTarget> {
    let uri: vscode.Uri;
    try {
      uri = vscode.Uri.parse(raw.trim(), true);
    } catch {
      throw new Error(`"${raw.slice(0, 80)}" is not a file address; only files inside the workspace can be dropped.`);
    }
    const rel = this.relativeOf(uri);
    if (!rel) throw new Error(`${uri.scheme === 'file' ? uri.fsPath : raw.slice(0, 120)} is outside the workspace folders; only files inside the workspace can be attached.`);
    const { ws, resolved } = await this.resolve(rel);
    const kind = await ws.kind(resolved);
    if (kind === 'directory') return { kind: 'folder', path: rel };
    if (kind === 'file') return { kind: 'file', path: rel };
    throw new Error(`${rel} is not a file or folder.`);
  }
}

function selectionLabel(editor: vscode.TextEditor): string {
  const { start, end } = editor.selection;
  return `${path.basename(editor.document.uri.path)}:${start.line + 1}-${end.line + 1}`;
}

function problemCount(diagnostics: readonly vscode.Diagnostic[]): string {
  return countOf(diagnostics.length, 'problem');
}

function severityName(severity: vscode.DiagnosticSeverity): string {
  return ['error', 'warning', 'info', 'hint'][severity] ?? 'problem';
}
