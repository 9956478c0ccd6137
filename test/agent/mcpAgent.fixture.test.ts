import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { lastValueFrom, toArray } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { AcpClient } from "../../src/acp/client.js";
import type { McpServerEntry } from "../../src/acp/mcpServers.js";
import { agentConfig, isRunning, scratch } from "../helpers/agents.js";
import { captureLogs } from "../helpers/logCapture.js";

const mcpAgentPath = fileURLToPath(new URL("../../fixtures/agents/mcp-agent.mjs", import.meta.url));
// Absolute: the agent spawns the server from its own working directory, not the repo's.
const recordingServerPath = fileURLToPath(new URL("../../fixtures/mcp/recording-reply-server.mjs", import.meta.url));
const SECRET = "never-recorded-7f3a";
const turnOptions = { hardTimeoutMs: 30_000, hungGraceMs: 2_000, livenessMs: 1_000 };

/** JSON lines of a file, or none when it was never written. */
function jsonLines(file: string): Record<string, unknown>[] {
  try {
    return readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Record<string, unknown>);
  } catch {
    return [];
  }
}

// The fixture agent against the recording MCP server, with no turnstream behind it: proves the
// agent really connects an MCP SDK client to the offered entry and calls `reply` as scripted.
describe("mcp-agent fixture", () => {
  const dirs: ReturnType<typeof scratch>[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => dir.cleanup()));

  async function promptOnce(text: string, offered: (callsFile: string) => McpServerEntry[]) {
    const dir = scratch();
    dirs.push(dir);
    const callsFile = join(dir.dir, "calls.jsonl");
    const agentLog = join(dir.dir, "mcp-agent.jsonl");
    const { logger } = captureLogs();
    const client = await AcpClient.start({
      agent: agentConfig({ AGENT_EVENTS_FILE: dir.eventsFile, MCP_AGENT_LOG: agentLog }, mcpAgentPath),
      env: process.env,
      logger,
    });
    try {
      const { sessionId } = await client.newSession(dir.dir, offered(callsFile));
      // A header before the user's text, as turnstream packs it: its words must not pick the script.
      const prompt = [
        { type: "text" as const, text: "<sender_context>\n{\"note\":\"wait\"}\n</sender_context>" },
        { type: "text" as const, text: `please ${text}` },
      ];
      const events = await lastValueFrom(client.prompt(sessionId, prompt, turnOptions).pipe(toArray()));
      return { sessionId, events, calls: jsonLines(callsFile), agentLog: jsonLines(agentLog), recorded: dir.events() };
    } finally {
      await client.close();
      expect(isRunning(client.process.pid)).toBe(false);
    }
  }

  const turnstreamStdio = (callsFile: string): McpServerEntry[] => [
    {
      name: "turnstream",
      command: process.execPath,
      args: [recordingServerPath],
      env: [
        { name: "REPLY_CALLS_FILE", value: callsFile },
        { name: "TURNSTREAM_REPLY_TOKEN", value: SECRET },
      ],
    },
  ];

  it("reply3: lists the tools, then calls reply with three messages over a stdio MCP client", async () => {
    const { sessionId, events, calls, agentLog, recorded } = await promptOnce("reply3", turnstreamStdio);

    expect(calls).toEqual([{ messages: ["one", "two", "three"] }]);
    expect(events).toEqual([{ type: "end", stopReason: "end_turn" }]);
    const schemas = agentLog.find((line) => "tools" in line && !("call" in line));
    expect(schemas).toMatchObject({ sessionId, tools: [{ name: "reply", inputSchema: { type: "object" } }] });
    expect(agentLog.filter((line) => "call" in line)).toEqual([
      { sessionId, script: "reply3", call: { messages: ["one", "two", "three"] }, isError: false, text: "sent 3 messages", tools: ["reply"] },
    ]);
    expect(recorded).toContain(`prompt ${sessionId} reply3`);
    expect(recorded).toContain(`mcp-connected ${sessionId} stdio`);
    expect(recorded).toContain(`mcp-servers ${sessionId} ${JSON.stringify([{ name: "turnstream", type: "stdio", env: ["REPLY_CALLS_FILE", "TURNSTREAM_REPLY_TOKEN"] }])}`);
    expect(recorded).toContain(`tool-result ${sessionId} ${JSON.stringify({ isError: false, text: "sent 3 messages" })}`);
    expect(recorded.join("\n")).not.toContain(SECRET);
  });

  it("textonly: answers with a text chunk and calls no tool", async () => {
    const { events, calls, agentLog } = await promptOnce("textonly", turnstreamStdio);

    expect(events).toEqual([
      { type: "text", text: "plain text answer" },
      { type: "end", stopReason: "end_turn" },
    ]);
    expect(calls).toEqual([]);
    expect(agentLog.filter((line) => "call" in line)).toEqual([]);
  });

  it("without a turnstream entry: records mcp-missing and says so instead of crashing", async () => {
    const { sessionId, events, recorded } = await promptOnce("reply3", () => []);

    expect(events).toEqual([
      { type: "text", text: "no reply tool offered" },
      { type: "end", stopReason: "end_turn" },
    ]);
    expect(recorded).toContain(`mcp-missing ${sessionId}`);
  });
});
