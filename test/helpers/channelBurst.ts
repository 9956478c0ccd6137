import { readlinkSync } from "node:fs";
import { isRunning } from "./agents.js";
import { userEvent, type Stack } from "./stack.js";

/** Events on `channels` distinct channels, each a 200 ms turn of the scripted agent (`slow 200`). */
export const channelBurst = (channels: number): Record<string, unknown>[] =>
  Array.from({ length: channels }, (_, i) => userEvent("slow 200", { channel: { id: `chan-${i}`, type: "dm" } }));

/**
 * The stack's agent processes alive right now: each started agent recorded `start <pid> <cwd>`;
 * it counts while that pid runs in that working directory (so a reused pid does not count).
 */
export function liveAgents(s: Stack): number {
  let live = 0;
  for (const line of s.agentEvents()) {
    if (!line.startsWith("start ")) continue;
    const [, pid, cwd] = line.split(" ");
    try {
      if (isRunning(Number(pid)) && readlinkSync(`/proc/${pid}/cwd`) === cwd) live += 1;
    } catch {
      // gone between the two checks
    }
  }
  return live;
}

/** Samples `sample` every few ms until `done` resolves; resolves with the samples. */
export async function sampleUntil<T>(done: Promise<unknown>, sample: () => T, everyMs = 5): Promise<T[]> {
  const samples: T[] = [];
  let finished = false;
  void done.finally(() => (finished = true));
  while (!finished) {
    samples.push(sample());
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  samples.push(sample());
  return samples;
}
