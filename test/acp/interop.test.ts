import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { lastValueFrom, toArray } from "rxjs";
import { AcpClient } from "../../src/acp/client.js";
import { agentConfig, isRunning, sdkAgentPath } from "../helpers/agents.js";
import { captureLogs } from "../helpers/logCapture.js";

// An agent built with the official ACP TypeScript SDK (2.4.0) on the other end of the pipe.
describe("interop with an agent built on @agentclientprotocol/sdk", () => {
  it("completes a prompt turn with the agent's events in wire order", async () => {
    const { logger } = captureLogs();
    const client = await AcpClient.start({ agent: agentConfig({}, sdkAgentPath), env: process.env, logger });
    try {
      const { sessionId } = await client.newSession(tmpdir());
      const events = await lastValueFrom(
        client
          .prompt(sessionId, [{ type: "text", text: "hi" }], { hardTimeoutMs: 20_000, hungGraceMs: 2_000, livenessMs: 1_000 })
          .pipe(toArray()),
      );
      expect(events).toEqual([
        { type: "text", text: "hello from the sdk agent" },
        { type: "tool_start", id: "sdk_1", title: "Thinking hard", kind: "think", status: "completed" },
        { type: "text", text: " — done" },
        { type: "end", stopReason: "end_turn" },
      ]);
    } finally {
      await client.close();
    }
    expect(isRunning(client.process.pid)).toBe(false);
  });
});
