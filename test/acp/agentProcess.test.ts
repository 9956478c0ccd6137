import { tmpdir } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { AgentProcess } from "../../src/acp/agentProcess.js";
import type { AgentConfig } from "../../src/config/index.js";
import type { AgentExitCause } from "../../src/metrics/instruments.js";
import { eventually, isRunning } from "../helpers/agents.js";
import { captureLogs } from "../helpers/logCapture.js";

/** `[agent]` running `node -e script`. */
function nodeAgent(script: string): AgentConfig {
  return { command: process.execPath, args: ["-e", script], working_dir: tmpdir(), env: {}, inherit_env: [], permission_mode: "allow_always" };
}

/** Keeps the child alive until it is signalled; prints "ready" once its handlers are set. */
const LONG_RUNNING = 'setInterval(() => undefined, 1000); process.stdout.write("ready\\n");';
const IGNORES_SIGTERM = 'process.on("SIGTERM", () => undefined); setInterval(() => undefined, 1000); process.stdout.write("ready\\n");';

const started: AgentProcess[] = [];

afterEach(() => {
  for (const agent of started.splice(0)) {
    if (agent.alive) process.kill(agent.pid, "SIGKILL");
  }
});

/** Starts `script` with an `onExit` that records every call, and waits for a "ready" line when asked. */
async function start(script: string, { waitReady = false, killAfterMs }: { waitReady?: boolean; killAfterMs?: number } = {}) {
  const causes: AgentExitCause[] = [];
  const { logger } = captureLogs();
  const agent = await AgentProcess.start(nodeAgent(script), { env: process.env, logger, killAfterMs, onExit: (cause) => causes.push(cause) });
  started.push(agent);
  let output = "";
  agent.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  if (waitReady) expect(await eventually(() => output.includes("ready"), 10_000)).toBe(true);
  return { agent, causes };
}

/** Lets any late (wrong) second call of `onExit` happen before the count is checked. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe("AgentProcess onExit (real child processes)", () => {
  it('reports "exited" once for an agent that exits with code 0 on its own', async () => {
    const { agent, causes } = await start("process.exit(0)");
    await expect(agent.exited).resolves.toEqual({ code: 0, signal: null });
    await settle();
    expect(causes).toEqual(["exited"]);
  });

  it('reports "failed" once for an agent that exits with code 3 on its own', async () => {
    const { agent, causes } = await start("process.exit(3)");
    await expect(agent.exited).resolves.toEqual({ code: 3, signal: null });
    await settle();
    expect(causes).toEqual(["failed"]);
  });

  it('reports "signal" once for an agent killed by a SIGKILL turnstream did not send', async () => {
    const { agent, causes } = await start(LONG_RUNNING, { waitReady: true });
    process.kill(agent.pid, "SIGKILL");
    await expect(agent.exited).resolves.toEqual({ code: null, signal: "SIGKILL" });
    await settle();
    expect(causes).toEqual(["signal"]);
  });

  it('reports "signal" for a SIGTERM someone else sent, too', async () => {
    const { agent, causes } = await start(LONG_RUNNING, { waitReady: true });
    process.kill(agent.pid, "SIGTERM");
    await expect(agent.exited).resolves.toEqual({ code: null, signal: "SIGTERM" });
    await settle();
    expect(causes).toEqual(["signal"]);
  });

  it('reports "stopped" once after terminate(), even though a signal ended it', async () => {
    const { agent, causes } = await start(LONG_RUNNING, { waitReady: true });
    expect(causes).toEqual([]);
    await expect(agent.terminate()).resolves.toEqual({ code: null, signal: "SIGTERM" });
    await agent.terminate(); // idempotent: no second report
    await settle();
    expect(causes).toEqual(["stopped"]);
    expect(isRunning(agent.pid)).toBe(false);
  });

  it('reports "stopped" once when terminate() had to SIGKILL an agent that ignores SIGTERM', async () => {
    const { agent, causes } = await start(IGNORES_SIGTERM, { waitReady: true, killAfterMs: 200 });
    await expect(agent.terminate()).resolves.toEqual({ code: null, signal: "SIGKILL" });
    await settle();
    expect(causes).toEqual(["stopped"]);
  });

  it("reports nothing before the agent exits, and a terminate() after its own exit keeps its own cause", async () => {
    const { agent, causes } = await start("setTimeout(() => process.exit(3), 300)");
    await settle();
    expect(causes).toEqual([]);
    await agent.exited;
    await agent.terminate();
    await settle();
    expect(causes).toEqual(["failed"]);
  });

  it("a hook that throws is logged; the exit still resolves and nothing escapes", async () => {
    const { logger, records } = captureLogs();
    const agent = await AgentProcess.start(nodeAgent("process.exit(3)"), {
      env: process.env,
      logger,
      onExit: () => {
        throw new Error("instrument threw");
      },
    });
    started.push(agent);
    await expect(agent.exited).resolves.toEqual({ code: 3, signal: null });
    await settle();
    expect(records.find((r) => r.msg === "agent exit hook failed")).toMatchObject({ reason: "exit_hook_failed" });
  });
});
