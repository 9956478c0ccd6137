import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { parseEnvelope } from "../../operators/delivery/envelope/envelope.js";
import { classifyUpdate, sessionUpdateParams } from "../../src/acp/sessionUpdate.js";

// The bundled demo agent as `turnstream demo` runs it: the built file, a real child process, ACP
// JSON-RPC lines over its stdio, the delivery mode told through its environment.
const agentPath = fileURLToPath(new URL("../../dist/src/demo/demoAgent.js", import.meta.url));
const fixture = JSON.parse(readFileSync(new URL("../../fixtures/sequential-message-v1.json", import.meta.url), "utf8")) as Frame;

type Frame = {
  jsonrpc?: string;
  id?: number;
  method?: string;
  params?: { sessionId?: string; update?: { sessionUpdate?: string; id?: string; content?: { text?: string } } };
  result?: { stopReason?: string; sessionId?: string };
  error?: { code: number; message: string };
};

interface Agent {
  readonly child: ChildProcessWithoutNullStreams;
  /** Every frame the agent wrote, with when it arrived (ms, test clock). */
  readonly frames: { frame: Frame; at: number }[];
  send(frame: object): void;
  /** Resolves with the first frame (already seen or still to come) that matches. */
  next(match: (frame: Frame) => boolean): Promise<Frame>;
}

const agents: Agent[] = [];
afterEach(() => {
  for (const agent of agents.splice(0)) agent.child.kill();
});

function startAgent(delivery?: string): Agent {
  const env = { ...process.env, TURNSTREAM_DEMO_DELIVERY: delivery };
  if (delivery === undefined) delete env.TURNSTREAM_DEMO_DELIVERY;
  const child = spawn(process.execPath, [agentPath], { env });
  const frames: { frame: Frame; at: number }[] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: child.stdout }).on("line", (line) => {
    frames.push({ frame: JSON.parse(line) as Frame, at: performance.now() });
    for (const wake of [...waiters]) wake();
  });
  const agent: Agent = {
    child,
    frames,
    send: (frame) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...frame })}\n`),
    next: (match) =>
      new Promise((resolve) => {
        const check = () => {
          const hit = frames.find(({ frame }) => match(frame));
          if (hit === undefined) return;
          waiters.delete(check);
          resolve(hit.frame);
        };
        waiters.add(check);
        check();
      }),
  };
  agents.push(agent);
  return agent;
}

/** Initializes, opens a session and sends one prompt (request id 3); resolves with the session id. */
async function prompt(agent: Agent, text: string): Promise<string> {
  agent.send({ id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
  agent.send({ id: 2, method: "session/new", params: { cwd: "/", mcpServers: [] } });
  const sessionId = (await agent.next((frame) => frame.id === 2)).result?.sessionId ?? "";
  const sender = "<sender_context>\n{}\n</sender_context>";
  agent.send({ id: 3, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: sender }, { type: "text", text }] } });
  return sessionId;
}

const updates = (agent: Agent) => agent.frames.filter(({ frame }) => frame.method === "session/update");
const answer = (agent: Agent) => agent.next((frame) => frame.id === 3);
const limits = { schema: "openab.turn.v1", maxBubbles: 4, maxBubbleChars: 1200 };

/** The key structure of a JSON value, its leaves blanked: two frames of the same shape compare equal. */
function shape(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return typeof value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, shape(inner)]));
}

describe("the demo agent in structured mode (the default)", () => {
  it("answers slow after 2 s of thinking with one valid openab.turn.v1 envelope that points at --delivery sequential", async () => {
    const agent = startAgent();
    await prompt(agent, "slow");
    const sentAt = performance.now();
    const result = await answer(agent);
    expect(result.result).toEqual({ stopReason: "end_turn" });
    const [chunk, ...others] = updates(agent);
    expect(others).toEqual([]);
    expect(chunk!.at - sentAt).toBeGreaterThanOrEqual(1_900);
    expect(chunk!.frame.params?.update?.sessionUpdate).toBe("agent_message_chunk");
    const envelope = parseEnvelope(chunk!.frame.params?.update?.content?.text ?? "", limits);
    if (!envelope.ok) throw new Error(`not a valid envelope: ${envelope.error.display}`);
    expect(envelope.plan.next).toEqual({ type: "stop" });
    expect(envelope.plan.bubbles).toHaveLength(1);
    expect(envelope.plan.bubbles[0]!.text).toContain("structured mode: one reply after 2 s of thinking");
    expect(envelope.plan.bubbles[0]!.text).toContain("`turnstream demo --delivery sequential`");
  });

  it("stops slow on session/cancel in structured mode too: no envelope, the prompt answers cancelled (the broker then delivers nothing)", async () => {
    const agent = startAgent("structured");
    const sessionId = await prompt(agent, "slow");
    agent.send({ method: "session/cancel", params: { sessionId } });
    expect((await answer(agent)).result).toEqual({ stopReason: "cancelled" });
    expect(updates(agent)).toEqual([]);
  });

  it("lists its scenarios in help, and says slow's sequential beats need --delivery sequential", async () => {
    const agent = startAgent("structured");
    await prompt(agent, "help");
    await answer(agent);
    const envelope = parseEnvelope(updates(agent)[0]?.frame.params?.update?.content?.text ?? "", limits);
    if (!envelope.ok) throw new Error(`not a valid envelope: ${envelope.error.display}`);
    const help = envelope.plan.bubbles[0]!.text;
    expect(help).toContain("structured mode");
    for (const scenario of ["flight", "silent", "broken", "slow", "help"]) expect(help).toContain(`• ${scenario} —`);
    expect(help).toContain("--delivery sequential");
  });
});

describe("the demo agent in sequential mode", () => {
  it("sends flight as three openab_message updates in the fixture's exact shape, then ends the turn", async () => {
    const agent = startAgent("sequential");
    const sessionId = await prompt(agent, "what about my flight?");
    expect((await answer(agent)).result).toEqual({ stopReason: "end_turn" });
    const bubbles = updates(agent).map(({ frame }) => frame);
    expect(bubbles.map((frame) => shape(frame))).toEqual([shape(fixture), shape(fixture), shape(fixture)]);
    expect(bubbles).toEqual(
      ["on it", "your flight moved to 8pm", "gate B12"].map((text, i) => ({
        jsonrpc: "2.0",
        method: "session/update",
        params: { sessionId, update: { sessionUpdate: "openab_message", id: `bubble_${i + 1}`, content: { type: "text", text } } },
      })),
    );
    // The broker's own reading of each update: a bubble.
    expect(bubbles.map((frame) => classifyUpdate(sessionUpdateParams.parse(frame.params).update))).toEqual([
      { type: "openab_message", id: "bubble_1", text: "on it" },
      { type: "openab_message", id: "bubble_2", text: "your flight moved to 8pm" },
      { type: "openab_message", id: "bubble_3", text: "gate B12" },
    ]);
    // Every bubble goes out while the prompt still runs.
    const answeredAt = agent.frames.findIndex(({ frame }) => frame.id === 3);
    expect(agent.frames.findLastIndex(({ frame }) => frame.method === "session/update")).toBeLessThan(answeredAt);
  });

  it("sends slow as three bubbles 2 s apart and answers the prompt after the last", async () => {
    const agent = startAgent("sequential");
    await prompt(agent, "slow");
    await answer(agent);
    const bubbles = updates(agent);
    expect(bubbles.map(({ frame }) => frame.params?.update?.content?.text)).toEqual(["on it", "still checking…", "done: your flight moved to 8pm"]);
    expect(bubbles[1]!.at - bubbles[0]!.at).toBeGreaterThanOrEqual(1_900);
    expect(bubbles[2]!.at - bubbles[1]!.at).toBeGreaterThanOrEqual(1_900);
  });

  it("stops slow on session/cancel: no further bubbles, the prompt answers cancelled", async () => {
    const agent = startAgent("sequential");
    const sessionId = await prompt(agent, "slow");
    await agent.next((frame) => frame.method === "session/update");
    agent.send({ method: "session/cancel", params: { sessionId } });
    const result = await answer(agent);
    expect(result.result).toEqual({ stopReason: "cancelled" });
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(updates(agent).map(({ frame }) => frame.params?.update?.content?.text)).toEqual(["on it"]);
  });

  it("answers silent with no bubble, only the broker's silent token", async () => {
    const agent = startAgent("sequential");
    await prompt(agent, "silent");
    expect((await answer(agent)).result).toEqual({ stopReason: "end_turn" });
    expect(updates(agent).map(({ frame }) => frame.params?.update)).toEqual([
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "NO_REPLY" } },
    ]);
  });

  it("sends broken as one bubble, then fails the prompt with a JSON-RPC error", async () => {
    const agent = startAgent("sequential");
    await prompt(agent, "broken");
    const result = await answer(agent);
    expect(result.error).toEqual({ code: -32000, message: "the demo agent broke off mid-reply" });
    expect(updates(agent).map(({ frame }) => frame.params?.update?.content?.text)).toEqual(["sorry, one sec"]);
  });

  it("answers help with one bubble listing the sequential scenarios", async () => {
    const agent = startAgent("sequential");
    await prompt(agent, "help");
    await answer(agent);
    const [help, ...others] = updates(agent).map(({ frame }) => frame.params?.update);
    expect(others).toEqual([]);
    expect(help?.sessionUpdate).toBe("openab_message");
    expect(help?.content?.text).toContain("sequential mode");
    expect(help?.content?.text).toContain("• slow — three bubbles, 2 s apart");
    for (const scenario of ["flight", "silent", "broken", "help"]) expect(help?.content?.text).toContain(`• ${scenario} —`);
  });
});
