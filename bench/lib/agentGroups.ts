import { readdirSync, readFileSync } from "node:fs";

/** One process as `/proc/<pid>/stat` names it. */
interface ProcessStat {
  readonly pid: number;
  readonly ppid: number;
  readonly pgrp: number;
  /** User + system CPU time so far, clock ticks. */
  readonly cpuTicks: number;
  readonly threads: number;
}

/** Linux's `USER_HZ`, the unit of `/proc/<pid>/stat` times (`getconf CLK_TCK`: 100 on every Linux ABI Node runs on). */
const TICKS_PER_SECOND = 100;

/** One agent process group as `/proc` shows it now: the agent process, its children and theirs. */
export interface AgentGroup {
  /** The agent process (the group's leader: the pool starts each agent in a process group of its own). */
  readonly pid: number;
  /** Processes in the group and below the agent, the agent included. */
  readonly processes: number;
  /** Their threads. */
  readonly threads: number;
  /**
   * Sum of their resident set sizes (`smaps_rollup` Rss), KiB. Pages shared between processes —
   * the agent binary's code, mapped from the same file by every agent process — count in each.
   */
  readonly rssKiB: number;
  /** Sum of their anonymous memory (`smaps_rollup` Anonymous), KiB: heaps and stacks, what each process adds beyond the shared binary. */
  readonly anonKiB: number;
  /** Sum of their proportional set sizes (`smaps_rollup` Pss), KiB: a page shared by k processes (of any program) counts 1/k in each. */
  readonly pssKiB: number;
  /** User + system CPU time they used so far, ms. */
  readonly cpuMs: number;
}

/**
 * Every agent this process started, read from `/proc` now: each child of `parentPid` is taken as
 * an agent (the benchmark starts no other child), and its group is the child, every descendant,
 * and every process still in its process group (a reparented grandchild). Linux only.
 */
export function readAgentGroups(parentPid = process.pid): AgentGroup[] {
  const stats = readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readStat(Number(name)))
    .filter((stat): stat is ProcessStat => stat !== undefined);
  const byPid = new Map(stats.map((stat) => [stat.pid, stat]));
  const children = new Map<number, number[]>();
  for (const stat of stats) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat.pid]);
  return (children.get(parentPid) ?? []).map((agent) => {
    const members = new Set<number>();
    const visit = (pid: number) => {
      members.add(pid);
      for (const child of children.get(pid) ?? []) visit(child);
    };
    visit(agent);
    for (const stat of stats) if (stat.pgrp === agent) members.add(stat.pid);
    const group = { pid: agent, processes: 0, threads: 0, rssKiB: 0, anonKiB: 0, pssKiB: 0, cpuMs: 0 };
    for (const pid of members) {
      const rollup = readRollup(pid);
      const stat = byPid.get(pid);
      if (rollup === undefined || stat === undefined) continue; // gone meanwhile, or a zombie
      group.processes += 1;
      group.threads += stat.threads;
      group.rssKiB += rollup.rssKiB;
      group.anonKiB += rollup.anonKiB;
      group.pssKiB += rollup.pssKiB;
      group.cpuMs += (stat.cpuTicks * 1000) / TICKS_PER_SECOND;
    }
    return group;
  });
}

function readStat(pid: number): ProcessStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may hold spaces or parentheses: the fields follow the last ')'.
    // From there: state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime … num_threads (index 17).
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { pid, ppid: Number(fields[1]), pgrp: Number(fields[2]), cpuTicks: Number(fields[11]) + Number(fields[12]), threads: Number(fields[17]) };
  } catch {
    return undefined;
  }
}

function readRollup(pid: number): { rssKiB: number; anonKiB: number; pssKiB: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0);
    return { rssKiB: field("Rss"), anonKiB: field("Anonymous"), pssKiB: field("Pss") };
  } catch {
    return undefined;
  }
}
