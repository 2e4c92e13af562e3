import type { CommandSandboxState, ExecOptions, ExecResult } from '../../ports/workspace';
import { intArg, stringArg } from '../args';
import { commandOffer } from '../commandAllowance';
import { offerUnder, outsideSandboxRequest, refusalText, sandboxNote, withNote, withNoteFirst } from '../commandSandboxing';
import type { Tool, ToolContext, ToolOutput } from '../types';
import { builtinDefinition } from './text';

export const runCommandTool: Tool = {
  definition: builtinDefinition(
    'run_command',
    'Run a shell command in a workspace folder (asks the user first) and return its output and exit code. Where a sandbox is available the command runs in it: it writes only in the workspace folders and a private /tmp, cannot read the user\'s secrets, and has no network unless the user allowed it.',
    { command: { type: 'string' }, cwd: { type: 'string' }, timeout_seconds: { type: 'integer', minimum: 1, maximum: 3600 } },
    ['command'],
  ),
  approval: 'command',
  async execute(args, ctx) {
    const command = stringArg(args, 'command', true);
    const cwd = await ctx.workspace.resolve(stringArg(args, 'cwd') ?? '.', { mustExist: true });
    const timeoutMs = Math.min((intArg(args, 'timeout_seconds', { min: 1, max: 3600 }) ?? ctx.limits.commandTimeoutMs / 1000) * 1000, 3_600_000);
    const sandbox = await ctx.workspace.commandSandbox();
    const parsed = await commandOffer(command, cwd, ctx.workspace).catch(() => ({ noAllowance: 'what it runs could not be read', allowance: undefined, runs: undefined }));
    const offer = offerUnder(sandbox, parsed);
    await ctx.approve(
      {
        title: `Run \`${command.split('\n')[0].slice(0, 120)}\` in ${cwd.relative}`,
        detail: command,
        command,
        sandbox: sandboxNote(sandbox),
        ...(offer.allowance ? { allowance: offer.allowance, allowForSession: offer.allowance.label } : { noAllowance: offer.noAllowance }),
        ...(offer.runs ? { runs: offer.runs } : {}),
      },
      'running this command',
    );
    const options: ExecOptions = { cwd: cwd.absolute, timeoutMs, maxOutputBytes: ctx.limits.maxCommandOutputBytes, signal: ctx.signal };
    const result = await ctx.workspace.exec(command, options);
    if (!result.sandboxRefused) return { output: result.output, isError: result.failed };
    return afterRefusal(command, cwd.relative, result, sandbox, options, ctx);
  },
};

/**
 * A sandboxed command failed the way the sandbox makes commands fail. The result says so, and the
 * card asks whether to run it again outside the sandbox (every time), or, when it lacked the
 * network, in the sandbox with the network for the rest of the session.
 */
async function afterRefusal(command: string, place: string, result: ExecResult, sandbox: CommandSandboxState, options: ExecOptions, ctx: ToolContext): Promise<ToolOutput> {
  const refusal = result.sandboxRefused!;
  const failedInside = withNote(result.output, `It failed in the sandbox; ${refusalText(refusal)}.`);
  const request = outsideSandboxRequest(command, place, refusal, sandbox);
  let grant: { forSession: boolean };
  try {
    grant = await ctx.approve(request, 'running this command outside the sandbox');
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    return { output: withNote(failedInside, 'The user chose not to run it outside the sandbox.'), isError: true };
  }
  if (grant.forSession && request.allowForSession) {
    ctx.workspace.allowSandboxNetwork();
    const again = await ctx.workspace.exec(command, options);
    return { output: withNoteFirst('Ran again in the sandbox with the network, which the user allowed for this session.', again.output), isError: again.failed };
  }
  const outside = await ctx.workspace.exec(command, { ...options, outsideSandbox: true });
  return { output: withNoteFirst('Ran again outside the sandbox, as the user approved, after it failed inside.', outside.output), isError: outside.failed };
}
