import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { scratch } from "../helpers/agents.js";
import { mcpAgentPath } from "../helpers/replyToolFlood.js";
import { startStack, until, userEvent, type Stack, stackBuses, useStackBus } from "../helpers/stack.js";

// Issue 43's acceptance over real processes: with `[pool] sessions_per_agent = 10`, ten
// conversations at once share ONE agent process, and what is per session stays per session —
// each reply-tool call is delivered to the conversation whose session made it, and each
// permission answer reaches the request of the session that asked it, never another's.

// Zero-padded, so no chat's name is the start of another's (`chat-1`, `chat-10`).
const TEN = Array.from({ length: 10 }, (_, i) => `chat-${String(i + 1).padStart(2, "0")}`);
const shared = { sessions_per_agent: 10, max_sessions: 10 };

let stack: Stack | undefined;
let cleanups: (() => void)[] = [];
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** Chat `chat`'s own person: their answers are the only ones its questions take. */
const personOf = (chat: string) => ({ id: `user-${chat}`, name: chat, display_name: `Person ${chat}`, is_bot: false });
const say = (s: Stack, chat: string, text: string) => s.gateway.broadcast(userEvent(text, { channel: { id: chat, type: "dm" }, sender: personOf(chat) }));
const repliesIn = (s: Stack, chat: string) => s.replies.filter((r) => r.channel.id === chat).map((r) => r.content.text);
const turnsComplete = (s: Stack) => s.records.filter((r) => r.msg === "turn complete").length;
/** Agent processes the broker started (its `agent started` lines). */
const agentPids = (s: Stack) => s.records.filter((r) => r.msg === "agent started").map((r) => r.agentPid as number);
/** The process a fixture agent's session id names (`sess-<pid>-<n>`, `mcp-<pid>-<n>`). */
const pidOfSession = (id: string) => Number(/^\w+-(\d+)-\d+$/.exec(id)?.[1]);
const settle = (ms = 300) => new Promise((resolve) => setTimeout(resolve, ms));

interface ToolCall {
  readonly sessionId: string;
  readonly script: string;
  readonly call: { readonly messages: readonly string[] };
  readonly isError: boolean;
}

function toolCalls(file: string): ToolCall[] {
  try {
    return readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as ToolCall & { call?: unknown })
      .filter((line) => line.call !== undefined);
  } catch {
    return [];
  }
}

describe.each(stackBuses())("ten conversations sharing one agent process (sessions_per_agent = 10, %s bus)", (bus) => {
  useStackBus(bus);

  // stdio: each session's own `turnstream mcp` relay; http: the broker's endpoint, one header secret per session.
  it.each(["stdio", "http"] as const)("the reply tool (%s): each chat gets exactly its own reply, from ten sessions of one process calling at once", async (transport) => {
    const dir = scratch();
    cleanups.push(dir.cleanup);
    const log = join(dir.dir, "tool.jsonl");
    stack = await startStack({
      config: { delivery: { mode: "structured" }, agent: { command: process.execPath, args: [mcpAgentPath] }, pool: shared },
      // Every turn waits until all ten are open in the process, so the ten calls cross in flight.
      agentEnv: { MCP_AGENT_LOG: log, MCP_AGENT_GATHER: "10", ...(transport === "http" ? { MCP_AGENT_HTTP: "1" } : {}) },
    });
    const s = stack;
    for (const chat of TEN) say(s, chat, `replyback the answer for ${chat}`);
    await s.replyCount(10, 45_000);
    expect(await until(() => turnsComplete(s) >= 10, 15_000)).toBe(true);
    await settle();

    for (const chat of TEN) expect(repliesIn(s, chat), chat).toEqual([`the answer for ${chat}`]);
    expect(s.replies).toHaveLength(10);
    const calls = toolCalls(log);
    expect(calls).toHaveLength(10);
    expect(calls.every((call) => !call.isError && call.script === "replyback")).toBe(true);
    // Ten sessions, each making one call of its own conversation's words.
    expect(new Set(calls.map((call) => call.sessionId)).size).toBe(10);
    expect(new Set(calls.map((call) => call.call.messages[0])).size).toBe(10);
    // All ten in one process, and all ten turns open there at once when they called.
    const [pid] = agentPids(s);
    expect(agentPids(s)).toHaveLength(1);
    expect(calls.map((call) => pidOfSession(call.sessionId))).toEqual(Array(10).fill(pid));
    expect(s.agentEvents().filter((line) => line.startsWith("gathered ")).map((line) => line.split(" ")[2])).toEqual(Array(10).fill("10"));
    expect(s.agentEvents().filter((line) => line.startsWith(`mcp-connected `)).every((line) => line.endsWith(` ${transport}`))).toBe(true);
    // Bounded generously: ten relays start on a machine other suites share (a few seconds alone).
  }, 60_000);

  it("permission answers: ten questions open at once on one process, each answer reaches its own session's request and no other", async () => {
    stack = await startStack({
      config: { agent: { permission_mode: "ask" }, pool: shared },
      // The question's message is edited once answered (a gateway that acks edits).
      gateway: { hello: { capabilities: { telegram: { send_ack: true, edit_ack: true, can_edit: true } } } },
    });
    const s = stack;
    // Each session offers an option only it has (`opt-pick-<chat>`), so an answer that reached
    // another session's request would show in that conversation as the wrong optionId.
    for (const chat of TEN) say(s, chat, `permission allow_once,reject_once,pick-${chat}`);
    await s.replyCount(10, 30_000);

    for (const chat of TEN) {
      const [question] = repliesIn(s, chat);
      expect(question, chat).toContain(`3. pick-${chat}`);
      expect(question).toContain(`Only Person ${chat} can answer.`);
      expect(TEN.filter((other) => other !== chat).some((other) => question?.includes(`pick-${other}`))).toBe(false);
    }
    const starts = s.agentEvents().filter((line) => line.startsWith("start "));
    expect(starts).toHaveLength(1);
    const pid = Number(starts[0]?.split(" ")[1]);
    const sessions = s.agentEvents().filter((line) => line.startsWith("new ")).map((line) => line.slice("new ".length));
    expect(sessions).toHaveLength(10);
    expect(sessions.map(pidOfSession)).toEqual(Array(10).fill(pid));
    expect(agentPids(s)).toEqual([pid]);

    // Answered one at a time, out of the order asked: each answer moves exactly its own request.
    const order = [3, 7, 0, 9, 5, 1, 8, 2, 6, 4].map((i) => TEN[i] ?? "");
    const responses = () => s.agentEvents().filter((line) => line.startsWith("permission-response "));
    for (const [done, chat] of order.entries()) {
      // By number in some chats, by the option's name in the others.
      say(s, chat, done % 2 === 0 ? "3" : `pick-${chat}`);
      expect(await until(() => repliesIn(s, chat).length >= 2, 15_000), `${chat}'s session answered`).toBe(true);
      expect(JSON.parse(repliesIn(s, chat)[1] ?? "")).toEqual({ outcome: { outcome: "selected", optionId: `opt-pick-${chat}` } });
      expect(responses()).toHaveLength(done + 1);
      for (const waiting of order.slice(done + 1)) expect(repliesIn(s, waiting), `${waiting} still waits`).toHaveLength(1);
    }

    expect(await until(() => turnsComplete(s) >= 10, 15_000)).toBe(true);
    await settle();
    expect(s.replies).toHaveLength(20);
    for (const chat of TEN) {
      const edit = s.commands.find((c) => c.command === "edit_message" && c.channel.id === chat);
      expect(edit?.content.text, chat).toContain(`→ pick-${chat} (Person ${chat})`);
    }
    // The answers started no turns of their own, and the process stayed the only one.
    expect(s.agentEvents().filter((line) => line.startsWith("prompt "))).toHaveLength(10);
    expect(s.agentEvents().filter((line) => line.startsWith("start "))).toHaveLength(1);
  });
});
