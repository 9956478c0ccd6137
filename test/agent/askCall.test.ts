import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolResult, ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { forwardAsk, readAskArguments } from "../../src/agent/askCall.js";
import { askAnswers, askInputSchema, type AskInput } from "../../src/agent/askTool.js";
import { connectTurnstream, type TurnstreamServer } from "../../src/agent/turnstreamServer.js";
import { captureLogs } from "../helpers/logCapture.js";

// forwardAsk against a real MCP SDK server over in-memory transports: what reaches the server
// (the input, a progress token), how progress keeps a long wait alive, and what the model is told.

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type AskHandler = (input: AskInput, extra: Extra) => Promise<CallToolResult>;

const input: AskInput = {
  questions: [
    { header: "Deploy", question: "Deploy to production now?", options: [{ label: "Yes", description: "ship it" }, { label: "No", description: "" }], multi_select: false },
    { header: "Notify", question: "Who should hear about it?", options: [{ label: "Team", description: "" }, { label: "Boss", description: "" }, { label: "Nobody", description: "" }], multi_select: true },
  ],
};
const answered = askAnswers(input, [
  { kind: "answered", chosen: [0], by: "Ann" },
  { kind: "timeout" },
]);
const answeredResult: CallToolResult = { content: [{ type: "text", text: JSON.stringify(answered) }], structuredContent: answered };

const open: TurnstreamServer[] = [];
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((server) => server.close()));
});

/** A `turnstream`-like server whose `ask` runs `handler`, and a connected agent side. */
async function serverWith(handler: AskHandler): Promise<TurnstreamServer> {
  const mcp = new McpServer({ name: "turnstream", version: "test" });
  mcp.registerTool("ask", { description: "ask", inputSchema: askInputSchema }, (args, extra) => handler(args, extra));
  const [agentSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcp.connect(serverSide);
  const server = await connectTurnstream(agentSide);
  open.push(server);
  return server;
}

const progressEvery = (extra: Extra, ms: number): NodeJS.Timeout => {
  let beat = 0;
  const token = extra._meta?.progressToken;
  return setInterval(() => {
    if (token !== undefined) void extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: ++beat } });
  }, ms);
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("forwardAsk", () => {
  it("forwards the input with a progress token and hands the structured answers back as JSON", async () => {
    const seen: { input?: AskInput; token?: unknown } = {};
    const server = await serverWith(async (args, extra) => {
      seen.input = args;
      seen.token = extra._meta?.progressToken;
      return answeredResult;
    });
    const { logger } = captureLogs();
    const text = await forwardAsk(JSON.stringify(input), { server, signal: new AbortController().signal, totalTimeoutMs: 5_000, sessionId: "s1", logger });
    expect(seen.input).toEqual(input);
    expect(seen.token).toBeDefined();
    expect(JSON.parse(text)).toEqual(answered);
  });

  it("a wait longer than the idle timeout lives on while progress arrives", async () => {
    const server = await serverWith(async (_args, extra) => {
      const beats = progressEvery(extra, 50);
      await sleep(1_200);
      clearInterval(beats);
      return answeredResult;
    });
    const { logger, records } = captureLogs();
    const text = await forwardAsk(JSON.stringify(input), { server, signal: new AbortController().signal, totalTimeoutMs: 10_000, idleTimeoutMs: 500, sessionId: "s1", logger });
    expect(JSON.parse(text)).toEqual(answered);
    expect(records.filter((record) => record.msg === "ask tool call failed")).toEqual([]);
  });

  it("silence past the idle timeout gives up: the model is told nothing was chosen", async () => {
    const server = await serverWith(() => new Promise(() => undefined));
    const { logger, records } = captureLogs();
    const text = await forwardAsk(JSON.stringify(input), { server, signal: new AbortController().signal, totalTimeoutMs: 10_000, idleTimeoutMs: 200, sessionId: "s1", logger });
    expect(text).toMatch(/^no answer: .*nothing was chosen/);
    expect(records.find((record) => record.msg === "ask tool call failed")).toMatchObject({ reason: "timeout", sessionId: "s1" });
  });

  it("progress does not keep a call alive past the total timeout", async () => {
    let beats: NodeJS.Timeout | undefined;
    const server = await serverWith((_args, extra) => {
      beats = progressEvery(extra, 50);
      return new Promise(() => undefined);
    });
    const { logger, records } = captureLogs();
    const started = Date.now();
    const text = await forwardAsk(JSON.stringify(input), { server, signal: new AbortController().signal, totalTimeoutMs: 600, idleTimeoutMs: 300, sessionId: "s1", logger });
    clearInterval(beats);
    expect(text).toMatch(/^no answer: /);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(records.find((record) => record.msg === "ask tool call failed")).toMatchObject({ reason: "timeout" });
  });

  it("a refusal (a tool error) is passed on as a line the model reads", async () => {
    const server = await serverWith(async () => ({ isError: true, content: [{ type: "text", text: "No turn of this conversation is running; nothing was sent." }] }));
    const { logger, records } = captureLogs();
    const text = await forwardAsk(JSON.stringify(input), { server, signal: new AbortController().signal, totalTimeoutMs: 5_000, sessionId: "s1", logger });
    expect(text).toBe("not asked: No turn of this conversation is running; nothing was sent.");
    expect(records.find((record) => record.msg === "ask tool call failed")).toMatchObject({ reason: "refused" });
  });

  it("a bad input is not sent: the model is told what to fix", async () => {
    let calls = 0;
    const server = await serverWith(async () => {
      calls += 1;
      return answeredResult;
    });
    const { logger, records } = captureLogs();
    const oneOption = { questions: [{ header: "Deploy", question: "Now?", options: [{ label: "Yes", description: "" }], multi_select: false }] };
    const text = await forwardAsk(JSON.stringify(oneOption), { server, signal: new AbortController().signal, totalTimeoutMs: 5_000, sessionId: "s1", logger });
    expect(text).toMatch(/^not asked: questions\.0\.options: .*Call ask again with a corrected input\.$/);
    expect(await forwardAsk("{not json", { server, signal: new AbortController().signal, totalTimeoutMs: 5_000, sessionId: "s1", logger })).toMatch(/^not asked: the tool arguments are not valid JSON/);
    expect(calls).toBe(0);
    expect(records.filter((record) => record.msg === "ask tool input rejected").map((record) => record.reason)).toEqual(["malformed", "malformed"]);
  });

  it("a cancelled turn rejects the call (and the server hears of it)", async () => {
    let cancelled = false;
    const server = await serverWith((_args, extra) => new Promise((resolve) => extra.signal.addEventListener("abort", () => ((cancelled = true), resolve(answeredResult)))));
    const { logger } = captureLogs();
    const turn = new AbortController();
    const call = forwardAsk(JSON.stringify(input), { server, signal: turn.signal, totalTimeoutMs: 5_000, sessionId: "s1", logger });
    await sleep(100);
    turn.abort();
    await expect(call).rejects.toBeDefined();
    await expect.poll(() => cancelled).toBe(true);
  });

  it("a closed connection: the model is told the chat could not be reached", async () => {
    const server = await serverWith(async () => answeredResult);
    await server.close();
    expect(server.closed).toBe(true);
    const { logger, records } = captureLogs();
    const text = await forwardAsk(JSON.stringify(input), { server, signal: new AbortController().signal, totalTimeoutMs: 5_000, sessionId: "s1", logger });
    expect(text).toMatch(/^not asked: the chat could not be reached/);
    expect(records.find((record) => record.msg === "ask tool call failed")).toMatchObject({ reason: "unreachable" });
  });
});

describe("readAskArguments", () => {
  it("takes a valid input and refuses unknown fields, naming the path but not the model's text", () => {
    expect(readAskArguments(JSON.stringify(input))).toEqual(input);
    const extra = readAskArguments(JSON.stringify({ questions: input.questions, [`x${"y".repeat(500)}`]: 1 }));
    expect(typeof extra).toBe("string");
    expect((extra as string).length).toBeLessThanOrEqual(160);
    expect(readAskArguments(JSON.stringify({ questions: [] }))).toMatch(/^questions: /);
  });
});
