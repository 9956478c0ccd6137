import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it, onTestFinished } from "vitest";
import type { AgentEvent, AgentFileEvent } from "../../operators/delivery/agentEvent.js";
import type { McpOffer } from "../../src/acp/mcpServers.js";
import type { ReplyToolHost } from "../../src/mcp/replyToolHost.js";
import type { ReplyToolSpec } from "../../src/mcp/replyToolSpec.js";
import { textOf, useReplyToolHost, type Via } from "../helpers/replyToolHost.js";

// Issue 42: `send_file` through the MCP SDK client joins the running turn as a `file` event of its
// own conversation (the tool names none), answers with the turn's verdict, and is refused between turns.

const text: ReplyToolSpec = { mode: "sequential", maxBubbles: 3, schema: "openab.turn.v1", reply: false };
const KEY = "telegram:42";
const replyTool = useReplyToolHost();
const connect = (offer: McpOffer, via: Via): Promise<Client> => replyTool.connectVia(offer, via);

function openTurn(host: ReplyToolHost): AgentEvent[] {
  const events: AgentEvent[] = [];
  const subscription = host.turnCalls(KEY).subscribe((event) => events.push(event));
  onTestFinished(() => subscription.unsubscribe());
  return events;
}

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const sendFile = async (client: Client, args: Record<string, unknown>): Promise<CallToolResult> => (await client.callTool({ name: "send_file", arguments: args })) as CallToolResult;

describe.each<Via>(["stdio", "http"])("send_file over %s", (via) => {
  it("a call in a running turn is one file event with the path and caption; the answer is the turn's verdict", async () => {
    const { host, records } = await replyTool.start(text);
    const client = await connect(host.offer(KEY, { http: true }), via);
    const events = openTurn(host);
    const answer = sendFile(client, { path: "out/chart.png", caption: "the chart" });
    await until(() => events.length === 1);
    const event = events[0] as AgentFileEvent;
    expect(event).toMatchObject({ type: "file", file: { caption: "the chart", source: { kind: "path", path: "out/chart.png" } } });
    event.settle?.({ kind: "accepted", filename: "chart.png", size: 2048 });
    const result = await answer;
    expect(result.isError).not.toBe(true);
    expect(textOf(result)).toBe("Accepted chart.png (2.0 KB): it is sent with your reply.");
    expect(records.find((r) => r.msg === "send_file tool called")).toMatchObject({ sessionKey: KEY, source: "path" });
  });

  it("bytes as data with a filename; a refusal is a tool error", async () => {
    const { host } = await replyTool.start(text);
    const client = await connect(host.offer(KEY, { http: true }), via);
    const events = openTurn(host);
    const answer = sendFile(client, { data: Buffer.from("hello").toString("base64"), filename: "hello.txt" });
    await until(() => events.length === 1);
    const event = events[0] as AgentFileEvent;
    expect(event.file).toEqual({ name: "hello.txt", source: { kind: "base64", data: "aGVsbG8=" } });
    event.settle?.({ kind: "refused", reason: "too_big", maxBytes: 1024 });
    const result = await answer;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("over this chat's size limit of 1.0 KB");
  });

  it("refused between turns, and input with both path and data (or data without a filename, or an unknown field) never reaches a turn", async () => {
    const { host, records } = await replyTool.start(text);
    const client = await connect(host.offer(KEY, { http: true }), via);
    const between = await sendFile(client, { path: "a.txt" });
    expect(between.isError).toBe(true);
    expect(records.find((r) => r.msg === "reply tool call refused")).toMatchObject({ reason: "reply_tool_no_turn" });
    const events = openTurn(host);
    for (const bad of [{ path: "a.txt", data: "aGk=", filename: "a" }, { data: "aGk=" }, { path: "a.txt", chat_id: "123" }, {}]) {
      const result = await sendFile(client, bad);
      expect(result.isError).toBe(true);
    }
    expect(events).toEqual([]);
  });
});
