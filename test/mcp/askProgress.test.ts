import { describe, expect, it } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { QuestionEvent } from "../../operators/delivery/agentEvent.js";
import { replyToolSpecs, useReplyToolHost } from "../helpers/replyToolHost.js";

// `ask` through the official MCP SDK client over the host's real endpoints: the call waits for the
// turn's question to settle, and progress notifications — counting up, as MCP wants — keep a
// client whose request timeout resets on progress waiting past that timeout. The same over 17 s of
// real time through the whole broker: test/e2e/askTool.load.test.ts.

const KEY = "telegram:c1:";
const fixture = useReplyToolHost();
const question = { header: "Deploy", question: "Where?", options: [{ label: "staging", description: "" }, { label: "production", description: "" }], multi_select: false };

describe("the ask tool's progress", () => {
  it.each(["stdio", "http"] as const)("keeps a waiting call alive past the client's request timeout (%s)", async (via) => {
    const { host } = await fixture.start({ ...replyToolSpecs.structured, askProgressMs: 100 });
    const client = await fixture.connectVia(host.offer(KEY, { http: true }), via);
    const events = fixture.openTurn(host, KEY);
    const progress: number[] = [];
    const call = client.callTool({ name: "ask", arguments: { questions: [question] } }, undefined, {
      timeout: 400,
      resetTimeoutOnProgress: true,
      onprogress: ({ progress: value }) => progress.push(value),
    }) as Promise<CallToolResult>;
    // Answered only after three times the client's timeout: progress must have reset it.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const asked = events.find((event): event is QuestionEvent => event.type === "question");
    expect(asked?.questions[0]?.options.map((o) => o.label)).toEqual(["staging", "production"]);
    asked?.settle([{ kind: "answered", chosen: [1], by: "Ann" }]);
    const result = await call;
    expect(result.isError).not.toBe(true);
    expect(result.structuredContent).toEqual({ answers: [{ header: "Deploy", question: "Where?", answered: true, selected: ["production"], answered_by: "Ann" }] });
    expect(progress.length).toBeGreaterThanOrEqual(5);
    expect(progress).toEqual(progress.map((_, i) => i + 1));
  });

  it("without progress to reset it, the client's timeout ends the wait (the reset is what keeps it)", async () => {
    const { host } = await fixture.start({ ...replyToolSpecs.structured, askProgressMs: 100 });
    const client = await fixture.connectVia(host.offer(KEY, { http: true }), "http");
    fixture.openTurn(host, KEY);
    await expect(client.callTool({ name: "ask", arguments: { questions: [question] } }, undefined, { timeout: 400, onprogress: () => undefined })).rejects.toThrow(/timed out/iu);
  });
});
