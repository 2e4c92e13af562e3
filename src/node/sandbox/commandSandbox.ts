import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { dirname, join } from 'path';
import type { CommandSandboxState, SandboxRefusal } from '../../core/ports/workspace';
import { bubblewrapArgs } from './bubblewrapArgs';
import { sandboxAvailability, type Availability } from './sandboxAvailability';
import { READ_ONLY_INSIDE, realPathOf, resolvePolicy, shownPath } from './sandboxPolicy';
import { sandboxRefusal } from './sandboxRefusal';
import { seatbeltArgs } from './seatbeltProfile';
import { unixSocketFilter } from './unixSocketFilter';

export interface SandboxSettings {
  /** The user's choice; when false, `turnedOffBy` says where they made it. */
  enabled: boolean;
  turnedOffBy?: string;
  /** The home folder whose secrets are hidden. */
  home: string;
  /** More paths to hide, from the user's own settings only. */
  extraHidden: readonly string[];
  /** Storage folders of the editor and of Tally (hidden). */
  storage: readonly string[];
}

/** How to start one sandboxed command, and what to do after it. */
export interface SandboxedSpawn {
  file: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** Give the command /dev/null in place of every descriptor above 2 the starting process holds open (bubblewrap passes each one in). */
  coverInherited?: boolean;
  /** A file opened read-only as the command's descriptor 3: bubblewrap's seccomp program. */
  descriptor3?: string;
  /** Whether a failed run's output shows the sandbox stopped it. */
  refusal(output: Uint8Array): SandboxRefusal | undefined;
  /** Frees what the start took (the private temporary folder on macOS). */
  done(): void;
}

let ownFiles: { empty: string; filter?: string } | undefined;

/**
 * Files bubblewrap reads, made once per process in a folder of its own (removed at exit): an empty
 * read-only file laid over each hidden file, and the seccomp program that refuses Unix sockets.
 */
function sandboxFiles(): { empty: string; filter?: string } {
  if (ownFiles) return ownFiles;
  const dir = mkdtempSync(join(tmpdir(), 'tally-sandbox-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const empty = join(dir, 'empty');
  writeFileSync(empty, '', { mode: 0o444 });
  const program = unixSocketFilter();
  const filter = program ? join(dir, 'no-unix-sockets.bpf') : undefined;
  if (filter) writeFileSync(filter, program!, { mode: 0o444 });
  return (ownFiles = { empty, filter });
}

/** The folder under /run that /etc/resolv.conf leads to (systemd-resolved, resolvconf), kept when the network is on. */
function resolverFolder(): string | undefined {
  const real = realPathOf('/etc/resolv.conf');
  return real.startsWith('/run/') ? dirname(real) : undefined;
}

/** The hidden paths present now, as the card names them (`~/.ssh`). */
function presentSecrets(folders: readonly string[], settings: SandboxSettings): string[] {
  const home = realPathOf(settings.home);
  return resolvePolicy({ ...settings, folders, network: false })
    .hidden.filter((p) => p.kind !== 'missing')
    .map((p) => shownPath(p.path, home));
}

/**
 * One session's sandbox for commands (its subagents share it): the user's settings, what this
 * machine offers, and whether the user let the session's sandboxed commands reach the network.
 */
export class CommandSandbox {
  private network = false;

  constructor(
    private readonly settings: () => SandboxSettings,
    private readonly system: { platform: NodeJS.Platform; bubblewrap?: string } = { platform: process.platform },
  ) {}

  allowNetwork(): void {
    this.network = true;
  }

  private availability(): Promise<Availability> {
    return sandboxAvailability(this.system.platform, this.system.bubblewrap);
  }

  async state(folders: readonly string[]): Promise<CommandSandboxState> {
    const settings = this.settings();
    if (!settings.enabled) return { sandboxed: false, reason: `the sandbox is turned off (${settings.turnedOffBy ?? 'by the user'})`, turnedOff: true };
    const found = await this.availability();
    if (!found.available) return { sandboxed: false, reason: found.reason, turnedOff: false };
    return {
      sandboxed: true,
      by: found.tool.kind === 'bubblewrap' ? 'bubblewrap' : 'macOS sandbox-exec',
      writable: [...folders],
      readOnlyInside: READ_ONLY_INSIDE,
      hidden: presentSecrets(folders, settings),
      network: this.network,
    };
  }

  /** How to run `command` in the sandbox, or undefined when commands run without one (turned off, or none here). */
  async spawn(command: string, cwd: string, folders: readonly string[]): Promise<SandboxedSpawn | undefined> {
    const settings = this.settings();
    if (!settings.enabled) return undefined;
    const found = await this.availability();
    if (!found.available) return undefined;
    const network = this.network;
    const policy = resolvePolicy({ folders, home: settings.home, extraHidden: settings.extraHidden, storage: settings.storage, network });
    if (found.tool.kind === 'seatbelt') {
      const tmp = mkdtempSync(join(realpathSync(tmpdir()), 'tally-sandbox-'));
      return {
        file: found.tool.path,
        args: seatbeltArgs(policy, { command, tmp }),
        env: { ...process.env, TMPDIR: `${tmp}/` },
        refusal: (output) => sandboxRefusal(output, { network }),
        done: () => rmSync(tmp, { recursive: true, force: true }),
      };
    }
    const files = sandboxFiles();
    // The program goes to bubblewrap as descriptor 3, opened by whichever process starts bubblewrap (the host or its spawner).
    const filter = !network ? files.filter : undefined;
    return {
      file: found.tool.path,
      args: bubblewrapArgs(policy, { command, cwd: realPathOf(cwd), emptyFile: files.empty, resolverDir: network ? resolverFolder() : undefined, seccompFd: filter === undefined ? undefined : 3 }),
      coverInherited: true,
      ...(filter !== undefined ? { descriptor3: filter } : {}),
      refusal: (output) => sandboxRefusal(output, { network }),
      done: () => undefined,
    };
  }
}
