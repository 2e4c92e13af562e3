// Extension-host and UI tests in a real VS Code (code-server + Chromium); see test/vscode/harness.
import { spawnSync } from 'child_process';
const result = spawnSync(process.execPath, ['-r', './test/register.cjs', 'test/vscode/harness/main.ts'], { stdio: 'inherit' });
process.exit(result.status ?? 1);
