import type { CommandSandboxState, SandboxRefusal } from '../ports/workspace';
import type { CommandOffer } from './commandAllowance';
import type { ApprovalRequest, SandboxNote } from './types';

/** What a command can do with no sandbox, said on its card. */
const UNCONFINED = 'the command can change any file you can, read your secrets and use the network';

/** Why a card offers no allowance where commands run without a sandbox. */
export const NO_SANDBOX_NO_ALLOWANCE = 'commands run without a sandbox, so nothing would bound what an allowed command does';

const folders = (n: number) => (n === 1 ? 'the workspace folder' : `the ${n} workspace folders`);

/** The card's line: where the command runs and what it may touch, or why it runs without a sandbox. */
export function sandboxNote(state: CommandSandboxState): SandboxNote {
  if (!state.sandboxed) return { sandboxed: false, text: `No sandbox: ${state.reason}; ${UNCONFINED}.` };
  const named = state.hidden.slice(0, 2).join(', ');
  const secrets = !state.hidden.length ? 'your secrets (none of those it hides is here now)' : state.hidden.length > 2 ? `${named} or ${state.hidden.length - 2} other secret paths` : named;
  const network = state.network ? 'reaches the network (allowed for this session)' : 'has no network';
  return {
    sandboxed: true,
    text: `Sandboxed: writes only in ${folders(state.writable.length)} and a private temporary folder, cannot read ${secrets}, ${network}.`,
    detail: [
      `Runs in a sandbox (${state.by}).`,
      `Writable: ${state.writable.join(', ')}, and a private temporary folder emptied after the command.`,
      `Read-only inside the workspace: ${state.readOnlyInside.join(', ')} (other programs run what they say).`,
      `Hidden: ${state.hidden.length ? state.hidden.join(', ') : 'none of the secrets it hides is here now'} (keys, credentials, key rings, histories, the editor's and Tally's storage, and any the user added).`,
      'Everything else on the machine: read-only.',
      `Network: ${state.network ? 'allowed for this session' : 'off (loopback and name lookups included)'}.`,
    ].join('\n'),
  };
}

/** The parser's offer, kept only where a sandbox bounds what an allowed command can do. */
export function offerUnder(state: CommandSandboxState, offer: CommandOffer): CommandOffer {
  if (state.sandboxed) return offer;
  return { ...(offer.runs ? { runs: offer.runs } : {}), noAllowance: NO_SANDBOX_NO_ALLOWANCE };
}

/** "a write outside the workspace was refused (“Read-only file system”)". */
export function refusalText(refusal: SandboxRefusal): string {
  const why =
    refusal.what === 'network'
      ? 'it has no network'
      : refusal.what === 'write'
        ? 'it refuses writes outside the workspace and to the files kept read-only inside'
        : 'it refuses some operations (local sockets while the network is off, changes only an administrator may make)';
  return `the sandbox may have stopped it: ${why} (the output says “${refusal.sign}”)`;
}

/**
 * The card that offers to run a command again outside the sandbox after it failed inside: it asks
 * every time (no setting or allowance answers it). When the network was what it lacked, the card
 * also offers the network for the session's sandboxed commands, which runs it again in the sandbox.
 */
export function outsideSandboxRequest(command: string, place: string, refusal: SandboxRefusal, state: CommandSandboxState): Omit<ApprovalRequest, 'callId' | 'toolName' | 'kind'> {
  const network = refusal.what !== 'write' && state.sandboxed && !state.network;
  return {
    title: `Run again outside the sandbox: \`${command.split('\n')[0].slice(0, 120)}\` in ${place}`,
    detail: command,
    command,
    outsideSandbox: true,
    approveLabel: 'Run outside the sandbox',
    sandbox: { sandboxed: false, text: `It failed in the sandbox; ${refusalText(refusal)}. Outside it, ${UNCONFINED}.` },
    ...(network ? { allowForSession: 'network for sandboxed commands' } : {}),
  };
}

const encoder = new TextEncoder();

/** A line added to a command's output for the model and the user. */
export function withNote(output: Uint8Array, note: string): Uint8Array {
  const line = encoder.encode(`\n[${note}]`);
  const joined = new Uint8Array(output.length + line.length);
  joined.set(output);
  joined.set(line, output.length);
  return joined;
}

export function withNoteFirst(note: string, output: Uint8Array): Uint8Array {
  const line = encoder.encode(`[${note}]\n`);
  const joined = new Uint8Array(output.length + line.length);
  joined.set(line);
  joined.set(output, line.length);
  return joined;
}
