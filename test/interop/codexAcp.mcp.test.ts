import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { lastValueFrom, toArray } from "rxjs";
import { AcpClient } from "../../src/acp/client.js";
import type { McpServerEntry } from "../../src/acp/mcpServers.js";
import type { AgentEvent } from "../../operators/delivery/agentEvent.js";
import { codexAcpAvailable, codexAgent, codexAgentConfig, type CodexAgent } from "../helpers/codexAcp.js";
import { callsTool, FakeResponsesApi, findTool, says, stops } from "../helpers/fakeResponsesApi.js";
import { isRunning } from "../helpers/agents.js";
import { captureLogs, type LogRecord } from "../helpers/logCapture.js";

const recordingReplyServer = fileURLToPath(new URL("../../fixtures/mcp/recording-reply-server.mjs", import.meta.url));
// Codex starts in well under 2 s here; the bounds leave room for a loaded CI machine.
const turn = { hardTimeoutMs: 45_000, hungGraceMs: 5_000, livenessMs: 1_000 };
const perTestMs = 60_000;

// The real codex-acp (Rust, pinned in devDependencies) run offline: its model is a local fake
// Responses API, and the reply tool comes from a stdio MCP server offered in session/new.
describe.skipIf(!codexAcpAvailable())("interop with @zed-industries/codex-acp over MCP", () => {
  let fake: FakeResponsesApi;
  let codex: CodexAgent;
  let client: AcpClient | undefined;
  let records: LogRecord[];

  beforeEach(async () => {
    fake = await FakeResponsesApi.start();
    codex = codexAgent(fake.url);
    client = undefined;
  });

  afterEach(async () => {
    await client?.close();
    if (client !== undefined) expect(isRunning(client.process.pid)).toBe(false);
    await fake.close();
    codex.cleanup();
  });

  /** Starts codex-acp through turnstream's client and opens a session in a scratch folder offering `mcpServers`. */
  async function session(mcpServers: readonly McpServerEntry[] = []): Promise<{ client: AcpClient; sessionId: string }> {
    const captured = captureLogs();
    records = captured.records;
    const workingDir = join(codex.home, "work");
    mkdirSync(workingDir);
    client = await AcpClient.start({ agent: codexAgentConfig(codex, workingDir), env: process.env, logger: captured.logger });
    const { sessionId } = await client.newSession(workingDir, mcpServers);
    return { client, sessionId };
  }

  const promptOnce = (started: AcpClient, sessionId: string, text: string): Promise<AgentEvent[]> =>
    lastValueFrom(started.prompt(sessionId, [{ type: "text", text }], turn).pipe(toArray()));

  /** The agent's stderr, for a failure message: why codex did what it did. */
  const agentStderr = () => records.filter((record) => record.msg === "agent stderr").map((record) => record.line).join("\n");

  it("offers the reply tool to the model and runs the model's call to it", async () => {
    const callsFile = join(codex.home, "reply-calls.jsonl");
    fake.push(callsTool("reply", { messages: ["one", "two", "three"] }), stops());
    const { client: started, sessionId } = await session([
      { name: "turnstream", command: process.execPath, args: [recordingReplyServer], env: [{ name: "REPLY_CALLS_FILE", value: callsFile }] },
    ]);

    const events = await promptOnce(started, sessionId, "say it in three bubbles");

    // The tool the model saw, with the MCP server's schema.
    const offered = findTool(fake.requests[0]!, "reply");
    expect(offered, agentStderr()).toBeDefined();
    expect(offered?.tool.parameters).toMatchObject({
      type: "object",
      properties: { messages: { type: "array", items: { type: "string" } }, next: { type: "string", enum: ["stop", "wait", "silent"] } },
      required: ["messages"],
    });
    // Codex ran the call it was given, through the MCP server, once.
    expect(readFileSync(callsFile, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as unknown), agentStderr()).toEqual([
      { messages: ["one", "two", "three"] },
    ]);
    // It asked before the call, turnstream's client said yes, and the tool's answer went back to the model.
    expect(records.filter((record) => record.msg === "auto-respond permission")).toMatchObject([{ mode: "allow_always", outcome: { outcome: "selected" } }]);
    expect(fake.requests).toHaveLength(2);
    const output = fake.requests[1]!.body.input.find((item) => item.type === "function_call_output");
    expect(String(output?.output)).toContain("sent 3 messages");
    // The call showed as a tool, the model said nothing else, and the turn ended.
    expect(events.some((event) => event.type === "tool_start")).toBe(true);
    expect(events.filter((event) => event.type === "text")).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: "end", stopReason: "end_turn" });
    expect(fake.otherRequests).toEqual([]);
  }, perTestMs);

  it("delivers a text-only answer as text events, as before the reply tool", async () => {
    fake.push(says("hello from the fake model"));
    const { client: started, sessionId } = await session();

    const events = await promptOnce(started, sessionId, "hi");

    const text = events.flatMap((event) => (event.type === "text" ? [event.text] : [])).join("");
    expect(text, agentStderr()).toBe("hello from the fake model");
    expect(events.filter((event) => event.type === "tool_start")).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: "end", stopReason: "end_turn" });
    expect(fake.requests).toHaveLength(1);
    expect(findTool(fake.requests[0]!, "reply")).toBeUndefined();
  }, perTestMs);
});
