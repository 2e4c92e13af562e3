import type { Tool } from '../types';
import { editFileTool } from './editFile';
import { listFilesTool } from './listFiles';
import { readFileTool } from './readFile';
import { runCommandTool } from './runCommand';
import { searchTextTool } from './searchText';
import { writeFileTool } from './writeFile';

/** The workspace tools every session has, in a fixed order. */
export function builtinTools(): Tool[] {
  return [readFileTool, listFilesTool, searchTextTool, runCommandTool, writeFileTool, editFileTool];
}
