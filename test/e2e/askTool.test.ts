import { afterEach, describe, expect, it } from "vitest";
import type { ReplyFrame } from "../../src/devgateway/devGateway.js";
import { Cluster, heldPartitions, useNatsCluster } from "../helpers/cluster.js";
import { natsServerAvailable } from "../helpers/natsServer.js";
import { startStack, stackBuses, until, userEvent, useStackBus, type Stack } from "../helpers/stack.js";
import { ANSWERED, askResults, CHECKS, DEPLOY, mcpAgentPath, negotiated } from "../helpers/askChats.js";

// Issue 41's `ask` tool end to end: an ACP agent that is a real MCP client (fixtures/agents/mcp-agent.mjs,
// the official SDK's Client, script `ask2`) calls `ask` on the `turnstream` server the broker
// offered it — two questions, the second multi-select, with a progress token — and makes the
// tool's structuredContent its chat text. The gateway protocol has no buttons: each question is a
// numbered list, answered by the requester's next message, which starts no turn of its own.

const unanswered = (reason: "timeout" | "cancelled") => ({
  answers: [
    { ...DEPLOY, answered: false, reason },
    { ...CHECKS, answered: false, reason },
  ],
});

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

async function start(mode: "text" | "sequential", agent: Record<string, unknown> = {}, agentEnv: Record<string, string> = {}): Promise<Stack> {
  stack = await startStack({
    config: { delivery: { mode }, agent: { command: process.execPath, args: [mcpAgentPath], ...agent } },
    agentEnv,
    gateway: negotiated,
  });
  return stack;
}

const texts = (replies: readonly ReplyFrame[]) => replies.map((reply) => reply.content.text);
const prompts = (s: Stack) => s.agentEvents().filter((line) => line.startsWith("prompt "));

/** Waits for a reply whose text satisfies `match` among `replies()`, and returns it. */
async function replyWhere(replies: () => readonly ReplyFrame[], match: (text: string) => boolean, timeoutMs = 20_000): Promise<ReplyFrame> {
  const found = () => replies().find((reply) => match(reply.content.text));
  if (!(await until(() => found() !== undefined, timeoutMs))) throw new Error(`no such reply; got ${JSON.stringify(texts(replies()))}`);
  return found()!;
}

function expectFirstQuestion(text: string): void {
  expect(text).toContain("❓ Deploy (1/2)");
  expect(text).toContain("Which environment should I deploy to?");
  expect(text).toContain("1. staging — the test cluster");
  expect(text).toContain("2. production — live traffic");
  expect(text).toContain("Reply with a number or an option's name. Only Ann can answer.");
}

function expectSecondQuestion(text: string): void {
  expect(text).toContain("❓ Checks (2/2)");
  expect(text).toContain("Which checks should run first?");
  expect(text).toContain("1. lint\n");
  expect(text).toContain("2. unit — fast tests");
  expect(text).toContain("3. e2e — slow, real sockets");
  expect(text).toContain("Reply with the numbers of the options you choose (1, 3). Only Ann can answer.");
}

/** Asks `ask2`, answers `2` then `1, 3` as the requester, and checks every step over the gateway. */
async function answerBoth(s: Stack): Promise<void> {
  s.gateway.broadcast(userEvent("ask2"));
  const [first] = await s.replyCount(1, 20_000);
  expectFirstQuestion(first!.content.text);
  // The turnstream server was offered (in every mode) and the agent reached it.
  expect(s.agentEvents().some((line) => line.startsWith("mcp-servers ") && line.includes('"name":"turnstream"'))).toBe(true);
  expect(s.records.find((r) => r.msg === "ask tool called")).toMatchObject({ questions: 2 });

  s.gateway.broadcast(userEvent("2"));
  const second = await s.replyCount(2, 20_000);
  expectSecondQuestion(second[1]!.content.text);

  s.gateway.broadcast(userEvent("1, 3"));
  const replies = await s.replyCount(3, 20_000);
  expect(JSON.parse(replies[2]!.content.text)).toEqual(ANSWERED);
  expect(askResults(s)).toEqual([{ isError: false, text: JSON.stringify(ANSWERED), structured: ANSWERED }]);
  // Each question's message now says what was chosen and by whom; the answers started no turn.
  await until(() => s.commands.filter((c) => c.command === "edit_message").length >= 2, 10_000);
  const edits = texts(s.commands.filter((c) => c.command === "edit_message"));
  expect(edits.some((text) => text.includes("❓ Deploy (1/2)") && text.endsWith("→ production (Ann)"))).toBe(true);
  expect(edits.some((text) => text.includes("❓ Checks (2/2)") && text.endsWith("→ lint, e2e (Ann)"))).toBe(true);
  expect(prompts(s)).toHaveLength(1);
  await until(() => s.records.some((r) => r.msg === "turn complete"), 10_000);
  expect(s.replies).toHaveLength(3);
}

describe.each(stackBuses())("the ask tool through the MCP SDK client, over the gateway protocol (%s bus)", (bus) => {
  useStackBus(bus);

  it("text mode: two questions asked one after the other, answered by number → structured answers", async () => {
    await answerBoth(await start("text"));
  });

  it("no answer within ask_timeout_secs → both questions marked unanswered (timeout), the conversation told", async () => {
    const s = await start("text", { ask_timeout_secs: 1 });
    s.gateway.broadcast(userEvent("ask2"));
    const [first] = await s.replyCount(1, 20_000);
    expectFirstQuestion(first!.content.text);
    const answer = await replyWhere(() => s.replies, (text) => text.startsWith("{"));
    expect(JSON.parse(answer.content.text)).toEqual(unanswered("timeout"));
    expect(askResults(s)).toMatchObject([{ isError: false, structured: unanswered("timeout") }]);
    expect(texts(s.replies)).toContain("⏱️ No answer in time.");
    // The second question was never asked; the first one's message says it timed out.
    expect(texts(s.replies).some((text) => text.includes("❓ Checks"))).toBe(false);
    await until(() => s.commands.some((c) => c.command === "edit_message"), 10_000);
    expect(texts(s.commands.filter((c) => c.command === "edit_message")).some((text) => text.includes("❓ Deploy (1/2)") && text.endsWith("⏱️ No answer in time."))).toBe(true);
    expect(s.records.find((r) => r.msg === "question answered")).toMatchObject({ how: "timeout", answered: 0, total: 2 });
  });
});

describe("the ask tool through the MCP SDK client, over the gateway protocol: sequential mode and /cancel", () => {
  it("sequential mode: the same two questions, the same structured answers", async () => {
    await answerBoth(await start("sequential"));
  });

  it("/cancel while the first question waits → both marked unanswered (cancelled), the question's message says so", async () => {
    const s = await start("text");
    s.gateway.broadcast(userEvent("ask2"));
    await s.replyCount(1, 20_000);
    s.gateway.broadcast(userEvent("/cancel"));
    expect(await until(() => askResults(s).length > 0, 20_000)).toBe(true);
    expect(askResults(s)).toMatchObject([{ isError: false, structured: unanswered("cancelled") }]);
    expect(await until(() => s.commands.some((c) => c.command === "edit_message" && c.content.text.endsWith("✖️ Cancelled.")), 10_000)).toBe(true);
    expect(prompts(s)).toHaveLength(1);
  });
});

// On NATS, the answer can arrive at any edge: two edges in processes of their own, each connected
// to a dev gateway of its own (so an event reaches exactly one edge), and one worker running the
// agent. The first message reaches edge A only; the answers reach edge B only.
describe.skipIf(!natsServerAvailable())("the ask tool on the NATS bus: the answer arrives at the other edge", () => {
  const nats = useNatsCluster();
  let other: Cluster | undefined;
  afterEach(async () => {
    await other?.stop();
    other = undefined;
  });

  it("2 edges on 2 gateways + 1 worker: asked through edge A, answered through edge B → the agent gets the answers", async () => {
    const deployment = { bus: { prefix: "asktool" }, config: { delivery: { mode: "text" } }, agentScript: mcpAgentPath };
    const a = await nats.start(deployment);
    // The same bus prefix: one deployment, whose second edge is connected to a gateway of its own.
    const b = (other = await Cluster.start({ natsUrl: nats.server.url, ...deployment }));
    await a.add("edge", "edge-a");
    await b.add("edge", "edge-b");
    const worker = await a.add("worker");
    expect(await until(() => a.gateway.brokerCount === 1 && b.gateway.brokerCount === 1 && heldPartitions(worker).size === 16, 30_000)).toBe(true);
    // Any edge may send a worker's message: the chat is both gateways' replies together.
    const replies = () => [...a.replies, ...b.replies];

    a.gateway.broadcast(userEvent("ask2"));
    expectFirstQuestion((await replyWhere(replies, (text) => text.includes("❓ Deploy (1/2)"), 60_000)).content.text);

    b.gateway.broadcast(userEvent("2"));
    expectSecondQuestion((await replyWhere(replies, (text) => text.includes("❓ Checks (2/2)"), 30_000)).content.text);

    b.gateway.broadcast(userEvent("1, 3"));
    const answer = await replyWhere(replies, (text) => text.startsWith("{"), 30_000);
    expect(JSON.parse(answer.content.text)).toEqual(ANSWERED);
    const results = a.agentEvents().filter((line) => line.startsWith("ask-result "));
    expect(results.map((line) => JSON.parse(line.slice(line.indexOf("{"))) as unknown)).toMatchObject([{ isError: false, structured: ANSWERED }]);

    // The worker took both answers from edge B's copies; neither answer started a turn.
    expect(worker.logs.filter((line) => line.msg === "question answered" && line.how === "answered")).toHaveLength(2);
    expect(a.agentEvents().filter((line) => line.startsWith("prompt "))).toHaveLength(1);
    expect([...a.logged("question answer ignored"), ...b.logged("question answer ignored")]).toHaveLength(0);
  }, 120_000);
});
