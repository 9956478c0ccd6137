import { GCProfiler, getHeapStatistics } from "node:v8";

export interface HeapAllocation {
  /** Bytes this process allocated on its JS heap in the interval (every isolate's own objects, the harness's included). */
  readonly bytes: number;
  /** Young-generation collections in the interval. */
  readonly scavenges: number;
  /** The longest of them, ms. */
  readonly scavengeMaxMs: number;
  /** Full (mark-compact) collections in the interval. */
  readonly markCompacts: number;
}

/**
 * Starts counting what this process allocates from now until `stop()`. V8 keeps no running total,
 * so the total is pieced together: the heap's growth up to each collection (as the collection
 * reports it before it runs), plus its growth since the last one. Unlike timings, the figure
 * hardly moves when other processes load the machine.
 */
export function measureHeapAllocation(): { stop(): HeapAllocation } {
  const profiler = new GCProfiler();
  profiler.start();
  const usedBefore = getHeapStatistics().used_heap_size;
  return {
    stop: () => {
      const usedAfter = getHeapStatistics().used_heap_size;
      const { statistics } = profiler.stop();
      let bytes = 0;
      let used = usedBefore;
      let scavenges = 0;
      let scavengeMaxMs = 0;
      let markCompacts = 0;
      for (const gc of statistics) {
        bytes += gc.beforeGC.heapStatistics.usedHeapSize - used;
        used = gc.afterGC.heapStatistics.usedHeapSize;
        if (gc.gcType === "Scavenge") {
          scavenges += 1;
          scavengeMaxMs = Math.max(scavengeMaxMs, gc.cost / 1_000); // `cost` is in µs
        } else if (gc.gcType === "MarkSweepCompact") {
          markCompacts += 1;
        }
      }
      return { bytes: bytes + usedAfter - used, scavenges, scavengeMaxMs, markCompacts };
    },
  };
}
