import { mkdirSync, writeFileSync } from 'fs';
import { join } from 'path';

/** A small project to open in VS Code for the tests: sources, a test script and an AGENTS.md. */
export function makeWorkspace(dir: string): string {
  const ws = join(dir, 'workspace');
  mkdirSync(join(ws, 'src'), { recursive: true });
  writeFileSync(join(ws, 'AGENTS.md'), '# Project rules\nRun `npm test` before committing.\n');
  mkdirSync(join(ws, '.tally', 'skills', 'release-notes'), { recursive: true });
  writeFileSync(join(ws, '.tally', 'skills', 'release-notes', 'SKILL.md'), '---\nname: release-notes\ndescription: Write release notes from the git log.\n---\nList the commits since the last tag.\n');
  writeFileSync(join(ws, 'src', 'math.ts'), 'export function add(a: number, b: number): number {\n  return a + b;\n}\n');
  writeFileSync(join(ws, 'package.json'), JSON.stringify({ name: 'demo', scripts: { test: 'node -e "console.log(1)"' } }, null, 2));
  return ws;
}
