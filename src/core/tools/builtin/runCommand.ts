import { intArg, stringArg } from '../args';
import { commandOffer } from '../commandAllowance';
import type { Tool } from '../types';
import { builtinDefinition } from './text';

export const runCommandTool: Tool = {
  definition: builtinDefinition(
    'run_command',
    'Run a shell command in a workspace folder (asks the user first) and return its output and exit code.',
    { command: { type: 'string' }, cwd: { type: 'string' }, timeout_seconds: { type: 'integer', minimum: 1, maximum: 3600 } },
    ['command'],
  ),
  approval: 'command',
  async execute(args, ctx) {
    const command = stringArg(args, 'command', true);
    const cwd = await ctx.workspace.resolve(stringArg(args, 'cwd') ?? '.', { mustExist: true });
    const timeoutMs = Math.min((intArg(args, 'timeout_seconds', { min: 1, max: 3600 }) ?? ctx.limits.commandTimeoutMs / 1000) * 1000, 3_600_000);
    const offer = await commandOffer(command, cwd, ctx.workspace).catch(() => ({ noAllowance: 'what it runs could not be read', allowance: undefined, runs: undefined }));
    await ctx.approve(
      {
        title: `Run \`${command.split('\n')[0].slice(0, 120)}\` in ${cwd.relative}`,
        detail: command,
        command,
        ...(offer.allowance ? { allowance: offer.allowance, allowForSession: offer.allowance.label } : { noAllowance: offer.noAllowance }),
        ...(offer.runs ? { runs: offer.runs } : {}),
      },
      'running this command',
    );
    const result = await ctx.workspace.exec(command, { cwd: cwd.absolute, timeoutMs, maxOutputBytes: ctx.limits.maxCommandOutputBytes, signal: ctx.signal });
    return { output: result.output, isError: result.failed };
  },
};
