import type { Launch, LaunchEvents, RunningProcess } from './launch';
import { launchHere } from './launchHere';
import { SpawnerClient, type SpawnerCommand } from './spawnerClient';

let spawner: SpawnerClient | undefined;

/**
 * Makes this process start hooks' and commands' processes through a spawner started by
 * `command` (the extension host does, at activation; the CLI and tests start them directly).
 * The spawner starts at the first launch, which waits until it is ready: its own start is one
 * fork of this process, the cost one process start had before, once. (In the editor the first
 * launch is usually the sandbox's probe, which the status bar asks for just after activation.)
 */
export function useSpawner(command: SpawnerCommand): SpawnerClient {
  spawner?.dispose();
  return (spawner = new SpawnerClient(command));
}

/** Stops the spawner; later processes start from this process. */
export function stopSpawner(): void {
  spawner?.dispose();
  spawner = undefined;
}

/** Starts a hook's or a command's process: through the spawner when there is one (not on Windows), else from this process. */
export function launchProcess(launch: Launch, events: LaunchEvents): RunningProcess {
  return spawner && process.platform !== 'win32' ? spawner.launch(launch, events) : launchHere(launch, events);
}
