/**
 * Runs `work` while a probe that re-arms itself with setImmediate measures the longest stretch the
 * event loop went without a turn. On a loaded machine that wall time includes time spent waiting for
 * a CPU, so the probe also gives the longest stretch in the process's CPU time (`blockCpuMs`: all
 * its threads, the host's thread most of it), which waiting does not lengthen.
 */
export async function withBlockProbe<T>(work: () => Promise<T> | T): Promise<{ result: T; blockMs: number; blockCpuMs: number }> {
  let longest = 0;
  let longestCpu = 0;
  let last = performance.now();
  let lastCpu = cpuMs();
  let running = true;
  const mark = () => {
    const now = performance.now();
    const cpu = cpuMs();
    longest = Math.max(longest, now - last);
    longestCpu = Math.max(longestCpu, cpu - lastCpu);
    last = now;
    lastCpu = cpu;
  };
  const tick = () => {
    mark();
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  try {
    const result = await work();
    mark();
    return { result, blockMs: Math.round(longest * 10) / 10, blockCpuMs: Math.round(longestCpu * 10) / 10 };
  } finally {
    running = false;
  }
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
