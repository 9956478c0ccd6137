import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startStack, until, userEvent, type Stack, stackBuses, useStackBus } from "../helpers/stack.js";

// Issue 17 hole 6: a failure on the broker's side reaches the chat as a short phrase and a code;
// the operator's log carries the key to fix, the path and the errno.
let stack: Stack | undefined;
let dir: string | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A user never sees a path, an errno or a stack line. */
function expectNoInternals(text: string | undefined, path: string): void {
  expect(text).not.toContain(path);
  expect(text).not.toMatch(/\bE[A-Z]{3,}\b|\n\s+at |sessions\.json|\/usr\/|\/tmp\//);
}

const brokerSideFailure = (s: Stack) => s.records.find((r) => r.msg === "turn failed on the broker side");

describe.each(stackBuses())("a broker-side failure in the chat (%s bus)", (bus) => {
  useStackBus(bus);

  it("a working dir that vanished after start-up: the user sees agent_unavailable, the log names agent.working_dir", async () => {
    dir = mkdtempSync(join(tmpdir(), "turnstream-wd-"));
    const workingDir = join(dir, "work");
    mkdirSync(workingDir);
    stack = await startStack({ config: { agent: { working_dir: workingDir } } });
    rmSync(workingDir, { recursive: true });
    stack.gateway.broadcast(userEvent("prose"));
    const [reply] = await stack.replyCount(1);
    expect(reply?.content.text).toBe("⚠️ The agent could not be started (agent_unavailable)");
    expectNoInternals(reply?.content.text, workingDir);
    expect(brokerSideFailure(stack)).toMatchObject({
      level: 50,
      reason: "agent_unavailable",
      configKey: "agent.working_dir",
      path: workingDir,
      errno: "ENOENT",
      err: { type: "AgentSpawnError", code: "agent_unavailable", problem: "does not exist" },
    });
    expect(await until(() => stack!.records.some((r) => r.msg === "turn failed"), 5_000)).toBe(true);
    expect(stack.records.find((r) => r.msg === "turn failed")).toMatchObject({ err: { type: "AgentSpawnError", configKey: "agent.working_dir" } });
  });

  it("the agent's own error is still shown as upstream shows it", async () => {
    stack = await startStack();
    stack.gateway.broadcast(userEvent("error"));
    const [reply] = await stack.replyCount(1);
    expect(reply?.content.text).toBe("⚠️ JSON-RPC error -32000: simulated agent failure — upstream 503");
    expect(brokerSideFailure(stack)).toBeUndefined();
  });
});

describe("a session file that cannot be read (embedded bus: sessions live in <state_dir>)", () => {
  // The session file alone breaks: the state dir also holds the turn queue's journal, without
  // which no event is queued at all (an append that cannot be written is refused, as on NATS).
  it("a session file replaced by a directory after start-up: every turn and /reset say session_store_unavailable", async () => {
    dir = mkdtempSync(join(tmpdir(), "turnstream-sd-"));
    const stateDir = join(dir, "state");
    stack = await startStack({ config: { pool: { state_dir: stateDir } } });
    mkdirSync(join(stateDir, "sessions.json"), { recursive: true });
    stack.gateway.broadcast(userEvent("prose"));
    await stack.replyCount(1);
    stack.gateway.broadcast(userEvent("/reset"));
    const replies = await stack.replyCount(2);
    for (const reply of replies) {
      expect(reply.content.text).toBe("⚠️ Saved conversations could not be read or written (session_store_unavailable)");
      expectNoInternals(reply.content.text, stateDir);
    }
    expect(brokerSideFailure(stack)).toMatchObject({
      reason: "session_store_unavailable",
      configKey: "pool.state_dir",
      path: join(stateDir, "sessions.json"),
      errno: "EISDIR",
      err: { type: "SessionFileError", operation: "get" },
    });
  });
});
