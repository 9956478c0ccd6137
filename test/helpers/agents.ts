import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentConfig } from "../../src/config/index.js";

export const scriptedAgentPath = fileURLToPath(new URL("../../fixtures/agents/scripted-agent.mjs", import.meta.url));
export const sdkAgentPath = fileURLToPath(new URL("../../fixtures/agents/sdk-agent.mjs", import.meta.url));

/** `[agent]` running a fixture agent with node, plus the given agent environment. */
export function agentConfig(env: Record<string, string> = {}, script = scriptedAgentPath): AgentConfig {
  return { command: process.execPath, args: [script], working_dir: tmpdir(), env, inherit_env: [], permission_mode: "allow_always" };
}

/** A scratch directory for an agent's events file and logs; remove it with `cleanup()`. */
export function scratch(): { dir: string; eventsFile: string; events(): string[]; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), "turnstream-agent-"));
  const eventsFile = join(dir, "events.log");
  return {
    dir,
    eventsFile,
    events: () => {
      try {
        return readFileSync(eventsFile, "utf8").split("\n").filter((line) => line !== "");
      } catch {
        return [];
      }
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Whether `pid` is a running process (a zombie waiting to be reaped counts as gone). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Polls until `check` holds or `timeoutMs` passes; resolves with the final result. */
export async function eventually(check: () => boolean, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}
