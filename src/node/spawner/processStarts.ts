import type { Launch, LaunchEvents, RunningProcess } from './launch';
import { launchHere } from './launchHere';
import { SpawnerClient, type SpawnerCommand } from './spawnerClient';

let spawner: SpawnerClient | undefined;

/**
 * Makes this process start hooks' and commands' processes through a spawner started by
 * `command` (the extension host does, at activation; the CLI and tests start them directly).
 * The spawner starts `warmUpAfterMs` later, off activation's path (its own start is one fork of
 * this process), or at the first launch if that comes sooner; launches wait until it is ready.
 */
export function useSpawner(command: SpawnerCommand, warmUpAfterMs = 0): SpawnerClient {
  spawner?.dispose();
  const client = (spawner = new SpawnerClient(command));
  setTimeout(() => void client.warmUp(), warmUpAfterMs).unref();
  return client;
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
