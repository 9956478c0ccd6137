import { PerformanceObserver } from "node:perf_hooks";

export interface ProcessCost {
  /** This process's CPU time (user + system, every thread: GC helpers included), µs. */
  readonly cpuMicros: number;
  /** Time the main thread spent in garbage collection (every `gc` performance entry), ms. */
  readonly gcMs: number;
}

/**
 * Starts measuring what this process spends from now until `stop()`: CPU time, which a busy
 * machine inflates far less than wall time, and GC time, the share the generation-size policy
 * (docs/scaling.md, "Node flags") is about.
 */
export function measureProcessCost(): { stop(): ProcessCost } {
  let gcMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMs += entry.duration;
  });
  observer.observe({ entryTypes: ["gc"] });
  const cpuBefore = process.cpuUsage();
  return {
    stop: () => {
      const cpu = process.cpuUsage(cpuBefore);
      // Entries not yet delivered to the callback are still in the observer's buffer.
      for (const entry of observer.takeRecords()) gcMs += entry.duration;
      observer.disconnect();
      return { cpuMicros: cpu.user + cpu.system, gcMs };
    },
  };
}
