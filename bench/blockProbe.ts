/**
 * Runs `work` while a probe that re-arms itself with setImmediate measures the longest stretch the
 * event loop went without a turn. On a loaded machine that wall time includes time spent waiting for
 * a CPU, so the probe also gives the longest stretch in the process's CPU time (`blockCpuMs`: all
 * its threads, the host's thread most of it), which waiting does not lengthen, and when it was
 * (`blockCpuAt`, on the clock of V8's CPU profiles).
 */
export async function withBlockProbe<T>(work: () => Promise<T> | T): Promise<{ result: T; blockMs: number; blockCpuMs: number; blockCpuAt: [number, number] }> {
  let longest = 0;
  let longestCpu = 0;
  let last = performance.now();
  let lastCpu = cpuMs();
  let lastUs = clockUs();
  let longestCpuAt: [number, number] = [lastUs, lastUs];
  let running = true;
  const mark = () => {
    const now = performance.now();
    const cpu = cpuMs();
    const us = clockUs();
    longest = Math.max(longest, now - last);
    if (cpu - lastCpu > longestCpu) {
      longestCpu = cpu - lastCpu;
      longestCpuAt = [lastUs, us];
    }
    last = now;
    lastCpu = cpu;
    lastUs = us;
  };
  const tick = () => {
    mark();
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  try {
    const result = await work();
    mark();
    return { result, blockMs: Math.round(longest * 10) / 10, blockCpuMs: Math.round(longestCpu * 10) / 10, blockCpuAt: longestCpuAt };
  } finally {
    running = false;
  }
}

/** The clock of V8's CPU profiles (µs), so a profile can be cut to the longest block (profileSummary.ts --window). */
function clockUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
