import { readFileSync } from "node:fs";

/** Linux CPU counters at one moment: the whole machine's (/proc/stat) and this process's reaped children's (/proc/self/stat). */
export interface CpuSnapshot {
  readonly busy: number;
  readonly total: number;
  readonly children: number;
}

/** Undefined where /proc is not there (not Linux): the share of other work is then not reported. */
export function cpuSnapshot(): CpuSnapshot | undefined {
  try {
    const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").trim().split(/\s+/).slice(1).map(Number);
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
    const stat = readFileSync("/proc/self/stat", "utf8");
    // Fields after the command name (which may contain spaces): cutime and cstime are the 14th and 15th of them.
    const after = stat.slice(stat.lastIndexOf(")") + 2).split(" ").map(Number);
    const children = (after[13] ?? 0) + (after[14] ?? 0);
    const busy = user + nice + system + irq + softirq + steal;
    return { busy, total: busy + idle + iowait, children };
  } catch {
    return undefined;
  }
}

/**
 * The share of the machine's CPU capacity that went to anything but the benchmark between two
 * snapshots taken around it (the benchmark and every process it started are reaped children of the
 * runner by the second one, so their time is in `children`). 0.1 = a tenth of all cores.
 */
export function otherWorkShare(before: CpuSnapshot | undefined, after: CpuSnapshot | undefined): number | undefined {
  if (before === undefined || after === undefined || after.total <= before.total) return undefined;
  const other = after.busy - before.busy - (after.children - before.children);
  return Math.max(0, other) / (after.total - before.total);
}
