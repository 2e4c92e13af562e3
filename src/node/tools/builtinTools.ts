import { editFileTool } from './editFile';
import { listFilesTool } from './listFiles';
import { readFileTool } from './readFile';
import { runCommandTool } from './runCommand';
import { searchTextTool } from './searchText';
import type { Tool } from '../../core/tools/types';
import { writeFileTool } from './writeFile';

/** The workspace tools every session has, in a fixed order. */
export function workspaceTools(): Tool[] {
  return [readFileTool, listFilesTool, searchTextTool, runCommandTool, writeFileTool, editFileTool];
}
