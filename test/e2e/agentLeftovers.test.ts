import { afterEach, describe, expect, it } from "vitest";
import { eventually, isRunning } from "../helpers/agents.js";
import { startStack, until, userEvent, type Stack, stackBuses, useStackBus } from "../helpers/stack.js";

let stack: Stack | undefined;
const escaped: number[] = [];
afterEach(async () => {
  // A process that escaped the agent's group is this test's to end.
  for (const pid of escaped.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  await stack?.stop();
  stack = undefined;
});

const exitedNotice = "⚠️ Agent process exited unexpectedly";
/** The pid the `leftover` scenario recorded. */
const leftoverPid = (s: Stack) => Number(s.agentEvents().find((line) => line.startsWith("grandchild "))?.split(" ")[1]);
const texts = (s: Stack) => s.replies.map((reply) => reply.content.text);
const lateDrops = (s: Stack) => s.records.filter((r) => r.msg === "session update outside a turn" && r.reason === "late_update");

describe.each(stackBuses())("a dead agent's leftovers never reach the gateway (%s bus)", (bus) => {
  useStackBus(bus);

  it("kills the agent's process group when the agent exits mid-turn: the turn fails with the usual notice, nothing of the leftover is delivered", async () => {
    stack = await startStack();
    stack.gateway.broadcast(userEvent("leftover group 300"));
    const [failed] = await stack.replyCount(1);
    expect(failed?.content.text).toBe(exitedNotice);
    const pid = leftoverPid(stack);
    expect(pid).toBeGreaterThan(0);
    // Killed with the group at the agent's exit, long before it would have written.
    expect(await eventually(() => !isRunning(pid), 3_000)).toBe(true);
    expect(stack.agentEvents().some((line) => line.startsWith("leftover-writing "))).toBe(false);
    // The conversation goes on, on a fresh agent, with nothing of the leftover in it.
    stack.gateway.broadcast(userEvent("prose"));
    const replies = await stack.replyCount(2);
    expect(replies[1]?.content.text).toContain("hey what's up");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stack.replies).toHaveLength(2);
    expect(texts(stack).join("\n")).not.toContain("leftover");
  });

  it("stops reading the dead agent's stdout, so a leftover that escaped the group with setsid never reaches a user", async () => {
    stack = await startStack();
    stack.gateway.broadcast(userEvent("leftover setsid 1000"));
    const [failed] = await stack.replyCount(1);
    expect(failed?.content.text).toBe(exitedNotice);
    const pid = leftoverPid(stack);
    expect(pid).toBeGreaterThan(0);
    escaped.push(pid);
    expect(isRunning(pid)).toBe(true);
    // It writes to the pipe it inherited, and finds it closed.
    expect(await until(() => stack!.agentEvents().includes(`leftover-write-failed ${pid} EPIPE`), 10_000)).toBe(true);
    stack.gateway.broadcast(userEvent("prose"));
    const replies = await stack.replyCount(2);
    expect(replies[1]?.content.text).toContain("hey what's up");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stack.replies).toHaveLength(2);
    expect(texts(stack).join("\n")).not.toContain("leftover");
  });
});

describe.each(stackBuses())("updates after the prompt's answer are dropped (%s bus)", (bus) => {
  useStackBus(bus);

  it.each(["text", "sequential"] as const)(
    "%s mode: delivers only what came before the answer, logs each late update, and the next turn is not polluted",
    async (mode) => {
      stack = await startStack({ config: { delivery: { mode } } });
      stack.gateway.broadcast(userEvent("lateburst 100"));
      const [first] = await stack.replyCount(1);
      expect(first?.content.text).toBe("before");
      // The one in the answer's own write, the one right after, the late bubble and the late chunk.
      expect(await until(() => lateDrops(stack!).length === 4, 10_000)).toBe(true);
      stack.gateway.broadcast(userEvent("prose"));
      const replies = await stack.replyCount(2);
      expect(replies[1]?.content.text).toBe("hey what's up");
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(texts(stack)).toEqual(["before", "hey what's up"]);
      expect(lateDrops(stack)).toHaveLength(4);
    },
  );
});
