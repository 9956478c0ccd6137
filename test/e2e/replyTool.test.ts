import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { replyToolSchema } from "../../src/agent/replyTool.js";
import { SEND_LEAVING_LOG } from "../../src/broker/brokerSender.js";
import { scratch } from "../helpers/agents.js";
import { startStack, until, userEvent, type Stack, stackBuses, useStackBus } from "../helpers/stack.js";

// The reply tool end to end: a real broker and dev gateway, and an ACP agent that is a real MCP
// client (fixtures/agents/mcp-agent.mjs, the official SDK's Client) connecting to the stdio server
// the broker offered it — `turnstream mcp`, relaying to the broker's socket — or to its HTTP one.

const mcpAgentPath = new URL("../../fixtures/agents/mcp-agent.mjs", import.meta.url).pathname;

interface ToolLogLine {
  readonly sessionId: string;
  readonly script?: string;
  readonly call?: unknown;
  readonly isError?: boolean;
  readonly text?: string;
  readonly tools?: readonly { readonly name: string; readonly inputSchema?: Record<string, unknown> }[] | readonly string[];
  readonly firstBlock?: string;
}

interface Run {
  readonly stack: Stack;
  /** When each reply frame reached the gateway (performance.now()). */
  /** The agent's tool calls with their results, in order. */
  calls(): ToolLogLine[];
  log(): ToolLogLine[];
  /** The secrets the sessions were offered (the agent wrote its stdio entry's env). */
  secrets(): string[];
}

let stack: Stack | undefined;
let cleanups: (() => void)[] = [];
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});

function lines(file: string): ToolLogLine[] {
  try {
    return readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as ToolLogLine);
  } catch {
    return [];
  }
}

async function start(
  mode: "structured" | "sequential" | "text",
  options: { delivery?: Record<string, unknown>; agentEnv?: Record<string, string>; pool?: Record<string, unknown> } = {},
): Promise<Run> {
  const dir = scratch();
  cleanups.push(dir.cleanup);
  const log = join(dir.dir, "tool.jsonl");
  const secretsDir = join(dir.dir, "secrets");
  mkdirSync(secretsDir);
  stack = await startStack({
    config: {
      delivery: { mode, bubble_delay_ms: 400, ...options.delivery },
      agent: { command: process.execPath, args: [mcpAgentPath] },
      ...(options.pool === undefined ? {} : { pool: options.pool }),
    },
    agentEnv: { MCP_AGENT_LOG: log, MCP_AGENT_SECRETS_DIR: secretsDir, ...options.agentEnv },
  });
  const secrets = () =>
    readdirSync(secretsDir).flatMap((file) =>
      (JSON.parse(readFileSync(join(secretsDir, file), "utf8")) as { name: string; value: string }[]).filter((pair) => pair.name === "TURNSTREAM_MCP_SECRET").map((pair) => pair.value),
    );
  return { stack, calls: () => lines(log).filter((line) => line.call !== undefined), log: () => lines(log), secrets };
}

function send(run: Run, text: string, chat = "chat-1"): void {
  run.stack.gateway.broadcast(userEvent(text, { channel: { id: chat, type: "dm" } }));
}

async function turnsComplete(run: Run, count: number): Promise<void> {
  expect(await until(() => run.stack.records.filter((r) => r.msg === "turn complete").length >= count, 20_000)).toBe(true);
}

const gaps = (times: readonly number[]) => times.slice(1).map((at, i) => at - (times[i] ?? at));
/** When each message left the broker (its `message leaving for its platform` debug line), in ms. */
const departures = (run: Run) => run.stack.records.filter((r) => r.msg === SEND_LEAVING_LOG && r.kind === "message").map((r) => r.time as number);
const settle = (ms = 300) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(stackBuses())("the reply tool over MCP (%s bus)", (bus) => {
  useStackBus(bus);

  it("structured: one call with three messages → three bubbles, bubble_delay_ms apart, acked in order", async () => {
    const run = await start("structured");
    send(run, "reply3");
    const replies = await run.stack.replyCount(3);
    expect(replies.map((r) => r.content.text)).toEqual(["one", "two", "three"]);
    // Paced from departure: the broker's own send lines say when each left (timers never fire early,
    // whereas an arrival read by this busy process can be late for one bubble and not the next).
    // Generous upper bound (a shared machine); the exact 400 ms is asserted in virtual time.
    for (const gap of gaps(departures(run))) expect(gap).toBeGreaterThanOrEqual(390), expect(gap).toBeLessThan(2_000);
    expect(run.calls()).toMatchObject([{ script: "reply3", isError: false, text: expect.stringContaining("3 messages will be sent") }]);
    await turnsComplete(run, 1);
    expect(run.stack.replies).toHaveLength(3);
  });

  it("sequential: two calls around a slow step → two messages, the first sent mid-turn", async () => {
    const run = await start("sequential", { agentEnv: { MCP_AGENT_SLOW_MS: "1500" } });
    send(run, "seq2");
    const replies = await run.stack.replyCount(2);
    expect(replies.map((r) => r.content.text)).toEqual(["working on it", "done: 42"]);
    // The first left while the agent was still working: the second call came 1.5 s later.
    expect(gaps(departures(run))[0]).toBeGreaterThanOrEqual(1_000);
    // The second result reaches the agent right after its message was acked.
    expect(await until(() => run.calls().length === 2, 10_000)).toBe(true);
    expect(run.calls().map(({ isError, text }) => ({ isError, text }))).toEqual([
      { isError: false, text: "Delivered 1 message." },
      { isError: false, text: "Delivered 1 message." },
    ]);
  });
});

describe("the reply tool over MCP: structured precedence and refusals", () => {
  it("next: silent → nothing is sent, and the turn completes", async () => {
    const run = await start("structured");
    send(run, "silent");
    await turnsComplete(run, 1);
    await settle();
    expect(run.stack.replies).toHaveLength(0);
    expect(run.calls()).toMatchObject([{ isError: false, text: expect.stringContaining("nothing will be sent") }]);
  });

  it("an envelope in the text and a tool call → the tool's reply wins, logged", async () => {
    const run = await start("structured");
    send(run, "toolandtext");
    const [reply] = await run.stack.replyCount(1);
    expect(reply?.content.text).toBe("from tool");
    await turnsComplete(run, 1);
    await settle();
    expect(run.stack.replies).toHaveLength(1);
    expect(run.stack.records.some((r) => r.reason === "tool_over_envelope")).toBe(true);
  });

  it("never called → today's rules: prose is delivered verbatim", async () => {
    const run = await start("structured");
    send(run, "textonly");
    const [reply] = await run.stack.replyCount(1);
    expect(reply?.content.text).toBe("plain text answer");
  });

  it("input the schema refuses → a tool error, nothing from it delivered", async () => {
    const run = await start("structured");
    send(run, "badargs");
    await turnsComplete(run, 1);
    expect(run.calls()).toMatchObject([{ isError: true }]);
    expect(JSON.stringify(run.stack.replies)).not.toContain("not an array");
  });

  it("a call after the turn settled → a tool error, and nothing of it delivered", async () => {
    const run = await start("structured");
    send(run, "late");
    const [reply] = await run.stack.replyCount(1);
    expect(reply?.content.text).toBe("in time");
    expect(await until(() => run.calls().length === 2, 10_000)).toBe(true);
    expect(run.calls()[1]).toMatchObject({ call: { messages: ["too late"] }, isError: true, text: expect.stringContaining("nothing was sent") });
    await settle(500);
    expect(run.stack.replies.map((r) => r.content.text)).toEqual(["in time"]);
    expect(run.stack.records.some((r) => r.reason === "reply_tool_no_turn")).toBe(true);
  });

  it("a call with another session's secret → a tool error; neither conversation gets it", async () => {
    const run = await start("structured");
    send(run, "reply3", "chat-2");
    await run.stack.replyCount(3);
    await turnsComplete(run, 1);
    send(run, "foreign", "chat-1");
    await turnsComplete(run, 2);
    const foreign = run.calls().find((line) => line.script === "foreign");
    expect(foreign).toMatchObject({ isError: true, text: expect.stringContaining("nothing was sent") });
    await settle();
    // chat-1's agent replied nothing it was allowed to: it gets structured mode's parse_error_text, as today.
    expect(run.stack.replies.filter((r) => r.channel.id === "chat-2").map((r) => r.content.text)).toEqual(["one", "two", "three"]);
    expect(JSON.stringify(run.stack.replies)).not.toContain("from a foreign client");
  });

  it("the tool's input schema is the agent kit's reply schema (max_bubbles, max_bubble_chars)", async () => {
    const run = await start("structured", { delivery: { max_bubbles: 3, max_bubble_chars: 500 } });
    send(run, "reply3");
    await run.stack.replyCount(3);
    const listed = run.log().find((line) => Array.isArray(line.tools) && typeof line.tools[0] === "object");
    const tool = (listed?.tools as { name: string; inputSchema: Record<string, unknown> }[] | undefined)?.find((t) => t.name === "reply");
    const { $schema: _dialect, ...schema } = tool?.inputSchema ?? {};
    expect(schema).toEqual(replyToolSchema({ mode: "envelope", maxBubbles: 3, maxBubbleChars: 500 }));
  });

  it("the first prompt of a session names the tool; later prompts do not repeat it", async () => {
    const run = await start("structured");
    send(run, "reply3");
    await run.stack.replyCount(3);
    await turnsComplete(run, 1);
    send(run, "silent");
    await turnsComplete(run, 2);
    const prompts = run.log().filter((line) => line.firstBlock !== undefined);
    expect(prompts).toHaveLength(2);
    expect(prompts[0]?.firstBlock).toContain("## Replying");
    expect(prompts[0]?.firstBlock).toContain("`turnstream` MCP server");
    expect(prompts[1]?.firstBlock).toMatch(/^<sender_context>/);
  });

  it("reply_tool_instructions = false → the first prompt is the event alone", async () => {
    const run = await start("structured", { delivery: { reply_tool_instructions: false } });
    send(run, "reply3");
    await run.stack.replyCount(3);
    expect(run.log().find((line) => line.firstBlock !== undefined)?.firstBlock).toMatch(/^<sender_context>/);
  });

  it('reply_tool = "off" → the MCP server offers only `ask`, no `reply`', async () => {
    const run = await start("structured", { delivery: { reply_tool: "off" } });
    send(run, "reply3");
    const [reply] = await run.stack.replyCount(1);
    expect(reply?.content.text).toBe("no reply tool offered");
    expect(run.stack.agentEvents().some((line) => line.startsWith('mcp-servers ') && line.includes('"name":"turnstream"'))).toBe(true);
  });

  it("a session resumed with session/load is offered the tool again, under a new secret that works", async () => {
    // One agent at a time: chat-1's session is suspended for chat-2's, then resumed with session/load.
    const run = await start("structured", { pool: { max_sessions: 1 } });
    send(run, "reply3", "chat-1");
    await run.stack.replyCount(3);
    await turnsComplete(run, 1);
    send(run, "reply3", "chat-2");
    await run.stack.replyCount(6);
    await turnsComplete(run, 2);
    send(run, "reply3", "chat-1");
    await run.stack.replyCount(9);
    const loads = run.stack.agentEvents().filter((line) => line.startsWith("load "));
    expect(loads).toHaveLength(1);
    const resumed = loads[0]?.slice("load ".length);
    expect(run.stack.agentEvents()).toContain(`mcp-servers ${resumed} [{"name":"turnstream","type":"stdio","env":["TURNSTREAM_MCP_ENDPOINT","TURNSTREAM_MCP_SECRET"]}]`);
    expect(run.stack.replies.filter((r) => r.channel.id === "chat-1").map((r) => r.content.text)).toEqual(["one", "two", "three", "one", "two", "three"]);
    expect(run.calls().every((line) => line.isError === false)).toBe(true);
  });

  it("over HTTP, for an agent that advertises mcpCapabilities.http", async () => {
    const run = await start("structured", { agentEnv: { MCP_AGENT_HTTP: "1" } });
    send(run, "reply3");
    const replies = await run.stack.replyCount(3);
    expect(replies.map((r) => r.content.text)).toEqual(["one", "two", "three"]);
    expect(run.stack.agentEvents().some((line) => /^mcp-connected \S+ http$/.test(line))).toBe(true);
  });

  it("no secret appears in any log line or reply", async () => {
    const run = await start("structured", { agentEnv: { MCP_AGENT_HTTP: "1" } });
    send(run, "reply3", "chat-1");
    send(run, "foreign", "chat-2");
    await turnsComplete(run, 2);
    const secrets = run.secrets();
    expect(secrets.length).toBeGreaterThanOrEqual(2);
    const everything = JSON.stringify(run.stack.records) + JSON.stringify(run.stack.replies) + run.stack.agentEvents().join("\n");
    for (const secret of secrets) expect(everything).not.toContain(secret);
  });
});

describe("the reply tool over MCP: sequential", () => {
  it("over the turn's cap → the result says what was delivered", async () => {
    const run = await start("sequential", { delivery: { max_bubbles: 3 } });
    send(run, "overcap");
    const replies = await run.stack.replyCount(3);
    expect(replies.map((r) => r.content.text)).toEqual(["a", "b", "c"]);
    expect(await until(() => run.calls().length === 2, 10_000)).toBe(true);
    expect(run.calls()[0]).toMatchObject({ isError: false, text: "Delivered 2 messages." });
    expect(run.calls()[1]).toMatchObject({ isError: false, text: expect.stringContaining("Capped after 1 of 3 messages") });
    await turnsComplete(run, 1);
    await settle();
    expect(run.stack.replies).toHaveLength(3);
  });

  it("never called → the text path, as today", async () => {
    const run = await start("sequential");
    send(run, "textonly");
    const [reply] = await run.stack.replyCount(1);
    expect(reply?.content.text).toBe("plain text answer");
  });
});
