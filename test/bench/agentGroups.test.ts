import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { readAgentGroups } from "../../bench/lib/agentGroups.js";

describe.runIf(process.platform === "linux")("readAgentGroups", () => {
  it("sums an agent process group from /proc: the child, its descendants, their memory and CPU", async () => {
    // A detached shell (its own process group, as the pool starts agents) with a child of its own.
    const agent = spawn("sh", ["-c", "sleep 30 & wait"], { detached: true, stdio: "ignore" });
    await once(agent, "spawn");
    try {
      let group = readAgentGroups().find((found) => found.pid === agent.pid);
      for (let tries = 0; (group?.processes ?? 0) < 2 && tries < 100; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        group = readAgentGroups().find((found) => found.pid === agent.pid);
      }
      expect(group).toMatchObject({ pid: agent.pid, processes: 2, threads: 2 });
      expect(group?.rssKiB).toBeGreaterThan(0);
      expect(group?.anonKiB).toBeGreaterThan(0);
      expect(group?.anonKiB).toBeLessThanOrEqual(group?.rssKiB ?? 0);
      expect(group?.pssKiB).toBeLessThanOrEqual(group?.rssKiB ?? 0);
      expect(group?.cpuMs).toBeGreaterThanOrEqual(0);
    } finally {
      process.kill(-(agent.pid as number), "SIGKILL");
    }
  });

  it("finds no group under a process without children", () => {
    expect(readAgentGroups(1 << 30)).toEqual([]);
  });
});
