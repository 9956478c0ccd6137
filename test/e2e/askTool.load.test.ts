import { afterEach, describe, expect, it } from "vitest";
import { ANSWERED, askResults, mcpAgentPath, negotiated } from "../helpers/askChats.js";
import { startStack, until, userEvent, type Stack } from "../helpers/stack.js";

// The `ask` tool's keep-alive over real time (issue 41): while it waits for the person, the broker
// sends a progress notification every 15 s, and an MCP client that resets its request timeout on
// progress keeps the call alive past that timeout. A load run: it waits out 17 s of real time. The
// same behaviour with a short interval, through the SDK client over the real socket:
// test/mcp/askProgress.test.ts.

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

async function start(agentEnv: Record<string, string>): Promise<Stack> {
  stack = await startStack({
    config: { delivery: { mode: "text" }, agent: { command: process.execPath, args: [mcpAgentPath] } },
    agentEnv,
    gateway: negotiated,
  });
  return stack;
}

describe("the ask tool's progress notifications over real time", () => {
  it(
    "progress notifications keep the call alive past the client's request timeout",
    async () => {
      // The client gives up on a request after 16 s unless a progress notification resets that;
      // the server sends one every 15 s while it waits. Answered once 17 s have passed.
      const s = await start({ MCP_AGENT_ASK_TIMEOUT_MS: "16000" });
      s.gateway.broadcast(userEvent("ask2"));
      await s.replyCount(1, 20_000);
      const askedAt = Date.now();
      expect(await until(() => s.agentEvents().some((line) => line.startsWith("ask-progress ")), 25_000)).toBe(true);
      // The first keep-alive: progress counts up (MCP wants it increasing), no total.
      expect(s.agentEvents().find((line) => line.startsWith("ask-progress "))).toMatch(/ 1\/$/);
      await until(() => Date.now() - askedAt > 17_000 || askResults(s).length > 0, 20_000);
      // Still waiting: without the reset the call would have failed by now.
      expect(askResults(s)).toEqual([]);
      s.gateway.broadcast(userEvent("2"));
      await s.replyCount(2, 20_000);
      s.gateway.broadcast(userEvent("1, 3"));
      const replies = await s.replyCount(3, 20_000);
      expect(JSON.parse(replies[2]!.content.text)).toEqual(ANSWERED);
    },
    60_000,
  );
});
