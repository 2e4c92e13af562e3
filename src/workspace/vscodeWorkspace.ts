import { promises as fsp, realpathSync } from 'fs';
import * as vscode from 'vscode';
import type { ResolvedPath } from '../core/ports/workspace';
import { hardLinkedWriteRefusal } from '../core/tools/hardLinks';
import { ToolInputError, type WorkspaceInfo } from '../core/tools/types';
import type { CommandSandbox } from '../node/sandbox/commandSandbox';
import { NodeWorkspace } from '../node/tools/nodeWorkspace';
import { confirmResolved, writeResolved } from '../node/tools/workspacePaths';
import { editorFollows } from './editorFollows';

const encoder = new TextEncoder();

const withoutBom = (text: string) => text.replace(/^\uFEFF/, '');

/** How many hard links (names) the file on disk has; 1 when it is missing or not a regular file. */
async function linkCount(absolute: string): Promise<number> {
  const stat = await fsp.lstat(absolute).catch(() => undefined);
  return stat?.isFile() ? stat.nlink : 1;
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The open document for a real path, if an editor holds one (matched through links as well). */
function openDocument(absolute: string): vscode.TextDocument | undefined {
  const docs = vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'file' && !d.isClosed);
  return docs.find((d) => d.uri.fsPath === absolute) ?? docs.find((d) => realPath(d.uri.fsPath) === absolute);
}

/** The smallest range of `before` to replace so it reads `after`: the edit touches only what changed. */
function changedRange(before: string, after: string): { start: number; end: number; text: string } {
  let start = 0;
  const max = Math.min(before.length, after.length);
  while (start < max && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let tail = 0;
  while (tail < max - start && before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)) tail++;
  return { start, end: before.length - tail, text: after.slice(start, after.length - tail) };
}

/**
 * The workspace as the user sees it in VS Code. Paths are confined exactly as on disk (the Node
 * rules: folders, links, protected paths, hard-linked files refused for writing and asked for
 * reading), commands run the same way; but reads and searches see
 * an open editor's unsaved text, and writes go through `WorkspaceEdit`, so each one is a single
 * undo step in the editor and keeps the user's unsaved changes around the edit.
 *
 * After an edit the document is saved only when it had no unsaved changes before, so the file on
 * disk follows the agent's edit (tests and commands see it) without saving work the user had not
 * saved; in that case the result tells the model the change is in the editor, not yet on disk.
 */
export class VscodeWorkspace extends NodeWorkspace {
  constructor(info: WorkspaceInfo, sandbox?: CommandSandbox) {
    super(info, sandbox);
  }

  override async readFile(path: ResolvedPath, maxBytes: number, options?: { savedOnly?: boolean }): Promise<{ bytes: Uint8Array; size: number; links: number }> {
    const doc = options?.savedOnly ? undefined : openDocument(path.absolute);
    if (!doc?.isDirty) return super.readFile(path, maxBytes);
    const bytes = encoder.encode(doc.getText());
    return { bytes: bytes.length > maxBytes ? bytes.subarray(0, maxBytes) : bytes, size: bytes.length, links: await linkCount(path.absolute) };
  }

  protected override async readListed(absolute: string, maxBytes: number): Promise<Uint8Array | undefined> {
    const doc = openDocument(absolute);
    if (!doc?.isDirty) return super.readListed(absolute, maxBytes);
    if ((await linkCount(absolute)) > 1) return undefined;
    const bytes = encoder.encode(doc.getText());
    return bytes.length > maxBytes ? undefined : bytes;
  }

  /**
   * An editor with unsaved changes gets the edit in its buffer only. Anything else is written on
   * disk through the folders held open from the workspace folder (never by path: a folder swapped
   * for a link while the write happens cannot lead it outside), and an editor showing the file
   * reloads it.
   */
  override async writeFile(input: string, path: ResolvedPath, text: string, basis: string | undefined): Promise<string | undefined> {
    await confirmResolved(input, this.info, path);
    const open = openDocument(path.absolute);
    if (open?.isDirty) return this.editUnsaved(open, path, text, basis);
    await writeResolved(input, this.info, path, text, {
      mustExist: basis !== undefined,
      // The user may have changed the file while the card waited: never write over text the tool did not see.
      check: async (file) => (basis !== undefined && withoutBom((await file.read()).toString('utf8')) !== withoutBom(basis) ? `${path.relative} changed while waiting for approval; nothing was written. Read it again.` : undefined),
    }).catch((error: unknown) => {
      if (error instanceof ToolInputError && basis !== undefined && / was deleted; nothing was written$/.test(error.message)) throw new ToolInputError(`${path.relative} was deleted while waiting for approval; nothing was written`);
      throw error;
    });
    if (open && !(await editorFollows(open, text))) return 'The file is written; the editor showing it has not reloaded it yet.';
    return undefined;
  }

  /** The edit in an editor's buffer, as one undo step, leaving it unsaved: the user's work is never saved for them. */
  private async editUnsaved(doc: vscode.TextDocument, path: ResolvedPath, text: string, basis: string | undefined): Promise<string> {
    // A save may write the file in place, changing every other name of a hard-linked file too.
    const links = await linkCount(path.absolute);
    if (links > 1) throw new ToolInputError(hardLinkedWriteRefusal(path.relative, links));
    const current = doc.getText();
    // An editor holds the text without the file's byte-order mark; the tool read it with one.
    if (basis !== undefined && current !== withoutBom(basis)) throw new ToolInputError(`${path.relative} changed while waiting for approval; nothing was written. Read it again.`);
    const change = changedRange(current, withoutBom(text));
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(doc.positionAt(change.start), doc.positionAt(change.end)), change.text);
    if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`VS Code did not apply the edit to ${path.relative}`);
    return 'The editor had unsaved changes, so the edit is in the editor but not saved to disk yet.';
  }
}
