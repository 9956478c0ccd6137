import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it, onTestFinished } from "vitest";
import type { AgentEvent, ReplyBubblesEvent } from "../../operators/delivery/agentEvent.js";
import { parseEnvelope } from "../../operators/delivery/envelope/envelope.js";
import type { McpOffer } from "../../src/acp/mcpServers.js";
import type { ReplyToolHost } from "../../src/mcp/replyToolHost.js";
import type { ReplyToolSpec } from "../../src/mcp/replyToolSpec.js";
import { callReply as call, textOf, useReplyToolHost, type Via } from "../helpers/replyToolHost.js";

const structured: ReplyToolSpec = { mode: "envelope", maxBubbles: 3, maxBubbleChars: 40, schema: "openab.turn.v1" };
const sequential: ReplyToolSpec = { mode: "sequential", maxBubbles: 3, schema: "openab.turn.v1" };
const KEY = "discord:chan-1";

const replyTool = useReplyToolHost();
const startHost = (spec: ReplyToolSpec) => replyTool.start(spec);
/** A real MCP SDK client on the offer's stdio entry (the `turnstream mcp` relay) or its HTTP entry. */
const connect = (offer: McpOffer, via: Via): Promise<Client> => replyTool.connectVia(offer, via);

/** Opens a turn of `key`: the calls it accepts, as its events, and its close (a turn still open closes after the test). */
function openTurn(reply: ReplyToolHost, key = KEY): { events: AgentEvent[]; close: () => void } {
  const events: AgentEvent[] = [];
  const subscription = reply.turnCalls(key).subscribe((event) => events.push(event));
  onTestFinished(() => subscription.unsubscribe());
  return { events, close: () => subscription.unsubscribe() };
}

async function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.each<Via>(["stdio", "http"])("the reply tool's per-session binding (over %s)", (via) => {
  describe("structured", () => {
    it("refuses a call when no turn of the session runs: an isError result saying nothing was sent", async () => {
      const { host, records } = await startHost(structured);
      const client = await connect(host.offer(KEY, { http: true }), via);
      const result = await call(client, { messages: ["hello"] });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("nothing was sent");
      expect(records.find((r) => r.msg === "reply tool call refused")).toMatchObject({ reason: "reply_tool_no_turn", sessionKey: KEY });
    });

    it("records a call in a running turn as one reply_plan whose envelope parses as openab.turn.v1", async () => {
      const { host, records } = await startHost(structured);
      const client = await connect(host.offer(KEY, { http: true }), via);
      const turn = openTurn(host);
      const result = await call(client, { messages: ["one", "two", "three"], next: "wait" });
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toContain("3 messages will be sent when your turn ends");
      expect(turn.events).toHaveLength(1);
      const [event] = turn.events;
      if (event?.type !== "reply_plan") throw new Error(`expected a reply_plan, got ${event?.type}`);
      const parsed = parseEnvelope(event.envelope, { schema: "openab.turn.v1", maxBubbles: 3, maxBubbleChars: 40 });
      expect(parsed).toMatchObject({ ok: true, plan: { next: { type: "wait" } } });
      if (!parsed.ok) return;
      expect(parsed.plan.bubbles.map((bubble) => bubble.text)).toEqual(["one", "two", "three"]);
      expect(records.find((r) => r.msg === "reply tool called")).toMatchObject({ sessionKey: KEY, mode: "structured", messages: 3, next: "wait" });
    });

    it("records a silent call as a silent envelope", async () => {
      const { host } = await startHost(structured);
      const client = await connect(host.offer(KEY, { http: true }), via);
      const turn = openTurn(host);
      const result = await call(client, { messages: [], next: "silent" });
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toContain("nothing will be sent");
      expect(turn.events).toMatchObject([{ type: "reply_plan" }]);
      const envelope = JSON.parse((turn.events[0] as { envelope: string }).envelope) as unknown;
      expect(envelope).toEqual({ schema: "openab.turn.v1", messages: [], next: { type: "silent" } });
    });

    it("refuses a second call in the same turn: the first reply stands", async () => {
      const { host, records } = await startHost(structured);
      const client = await connect(host.offer(KEY, { http: true }), via);
      const turn = openTurn(host);
      expect((await call(client, { messages: ["first"] })).isError).toBeFalsy();
      const second = await call(client, { messages: ["second"] });
      expect(second.isError).toBe(true);
      expect(textOf(second)).toContain("already replied");
      expect(turn.events).toHaveLength(1);
      expect(records.filter((r) => r.msg === "reply tool call refused").map((r) => r.reason)).toEqual(["reply_tool_already_replied"]);
    });

    it("accepts a call again in the session's next turn, and refuses one after the turn closed", async () => {
      const { host } = await startHost(structured);
      const client = await connect(host.offer(KEY, { http: true }), via);
      const first = openTurn(host);
      await call(client, { messages: ["first turn"] });
      first.close();
      const between = await call(client, { messages: ["between turns"] });
      expect(between.isError).toBe(true);
      expect(textOf(between)).toContain("No turn of this conversation is running");
      const second = openTurn(host);
      expect((await call(client, { messages: ["second turn"] })).isError).toBeFalsy();
      expect(first.events).toHaveLength(1);
      expect(second.events).toHaveLength(1);
    });

    it("delivers a call only to its own session's turn", async () => {
      const { host } = await startHost(structured);
      const mine = await connect(host.offer(KEY, { http: true }), via);
      host.offer("discord:chan-2", { http: true });
      const other = openTurn(host, "discord:chan-2");
      const result = await call(mine, { messages: ["hi"] });
      expect(result.isError).toBe(true);
      expect(other.events).toEqual([]);
    });

    it("refuses every call once the offer is released (the session went away)", async () => {
      const { host, records } = await startHost(structured);
      const offer = host.offer(KEY, { http: true });
      const client = await connect(offer, via);
      const turn = openTurn(host);
      offer.release();
      if (via === "http") {
        // Over HTTP a revoked bearer is no bearer: 401 before MCP, so the call fails as a request.
        await expect(call(client, { messages: ["too late"] })).rejects.toMatchObject({ code: 401 });
        expect(records.find((r) => r.msg === "reply tool request refused: no live bearer")).toMatchObject({ reason: "mcp_unauthorized" });
      } else {
        const result = await call(client, { messages: ["too late"] });
        expect(result.isError).toBe(true);
        expect(textOf(result)).toContain("nothing was sent");
        expect(records.find((r) => r.msg === "reply tool call refused")).toMatchObject({ reason: "reply_tool_unknown_secret" });
      }
      expect(turn.events).toEqual([]);
    });

    it.each([
      ["more messages than max_bubbles", { messages: ["a", "b", "c", "d"] }],
      ["a message over max_bubble_chars", { messages: ["x".repeat(41)] }],
      ["an unknown key", { messages: ["a"], extra: true }],
      ["messages that are not strings", { messages: [1, 2] }],
      ["an unknown next", { messages: ["a"], next: "tool" }],
      ["no messages and not silent", { messages: [] }],
      ["only blank messages", { messages: ["  ", "\n"] }],
    ])("refuses %s with an isError result and no event", async (_case, args) => {
      const { host } = await startHost(structured);
      const client = await connect(host.offer(KEY, { http: true }), via);
      const turn = openTurn(host);
      const result = await call(client, args);
      expect(result.isError).toBe(true);
      expect(turn.events).toEqual([]);
      // The refusal leaves the turn's one reply untouched: a good call still lands.
      expect((await call(client, { messages: ["ok"] })).isError).toBeFalsy();
      expect(turn.events).toHaveLength(1);
    });

    it("logs a call the binding could not render as reply_tool_bad_input, with the problem and never the text", async () => {
      const { host, records } = await startHost(structured);
      const client = await connect(host.offer(KEY, { http: true }), via);
      openTurn(host);
      const result = await call(client, { messages: [" ", "\t"] });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("Nothing was sent");
      expect(records.find((r) => r.msg === "reply tool call refused")).toMatchObject({ reason: "reply_tool_bad_input", problem: "empty_turn", sessionKey: KEY });
    });

    it("lets silence win over messages in the same call", async () => {
      const { host } = await startHost(structured);
      const client = await connect(host.offer(KEY, { http: true }), via);
      const turn = openTurn(host);
      expect((await call(client, { messages: ["a"], next: "silent" })).isError).toBeFalsy();
      expect(JSON.parse((turn.events[0] as { envelope: string }).envelope)).toEqual({ schema: "openab.turn.v1", messages: [], next: { type: "silent" } });
    });
  });

  describe("sequential", () => {
    /** Starts a call in a running turn and waits for its reply_bubbles event. */
    async function bubblesCall(client: Client, turn: { events: AgentEvent[] }, messages: string[]) {
      const order: string[] = [];
      const answer = call(client, { messages }).then((result) => {
        order.push("result");
        return result;
      });
      await until(() => turn.events.length > 0, "the reply_bubbles event");
      order.push("event");
      const event = turn.events[0] as ReplyBubblesEvent;
      return { answer, order, event };
    }

    it("hands the turn a reply_bubbles event and answers only after settle", async () => {
      const { host, records } = await startHost(sequential);
      const client = await connect(host.offer(KEY, { http: true }), via);
      const turn = openTurn(host);
      const { answer, order, event } = await bubblesCall(client, turn, ["one", "two"]);
      expect(event).toMatchObject({ type: "reply_bubbles", messages: ["one", "two"] });
      // Time for an answer that did not wait to arrive: none may.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(order).toEqual(["event"]);
      order.push("settle");
      event.settle({ delivered: 2, dropped: 0, failed: false });
      const result = await answer;
      expect(order).toEqual(["event", "settle", "result"]);
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toBe("Delivered 2 messages.");
      expect(records.find((r) => r.msg === "reply tool called")).toMatchObject({ sessionKey: KEY, mode: "sequential", messages: 2 });
    });

    it("takes several calls in one turn", async () => {
      const { host } = await startHost(sequential);
      const client = await connect(host.offer(KEY, { http: true }), via);
      const turn = openTurn(host);
      const first = await bubblesCall(client, turn, ["one"]);
      first.event.settle({ delivered: 1, dropped: 0, failed: false });
      expect(textOf(await first.answer)).toBe("Delivered 1 message.");
      const second = call(client, { messages: ["two"] });
      await until(() => turn.events.length === 2, "the second reply_bubbles event");
      (turn.events[1] as ReplyBubblesEvent).settle({ delivered: 1, dropped: 0, failed: false });
      expect((await second).isError).toBeFalsy();
    });

    it("tells the model when the cap dropped messages (not an error: calling again would be capped too)", async () => {
      const { host } = await startHost(sequential);
      const client = await connect(host.offer(KEY, { http: true }), via);
      const turn = openTurn(host);
      const { answer, event } = await bubblesCall(client, turn, ["one", "two"]);
      event.settle({ delivered: 1, dropped: 1, failed: false });
      const result = await answer;
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toContain("Capped after 1 of 2 messages");
    });

    it("answers a failed send with an isError result naming what was delivered", async () => {
      const { host } = await startHost(sequential);
      const client = await connect(host.offer(KEY, { http: true }), via);
      const turn = openTurn(host);
      const { answer, event } = await bubblesCall(client, turn, ["one", "two", "three"]);
      event.settle({ delivered: 1, dropped: 0, failed: true });
      const result = await answer;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("Sending failed after 1 of 3 messages");
    });

    it("answers a call cut short by the turn's end with an isError result", async () => {
      const { host } = await startHost(sequential);
      const client = await connect(host.offer(KEY, { http: true }), via);
      const turn = openTurn(host);
      const { answer, event } = await bubblesCall(client, turn, ["one", "two"]);
      event.settle({ delivered: 1, dropped: 0, failed: false });
      const result = await answer;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("The turn ended after 1 of 2 messages were sent");
    });

    it("hands the turn the messages trimmed, blank ones dropped", async () => {
      const { host } = await startHost(sequential);
      const client = await connect(host.offer(KEY, { http: true }), via);
      const turn = openTurn(host);
      const { answer, event } = await bubblesCall(client, turn, ["  one  ", " ", "two\n"]);
      expect(event.messages).toEqual(["one", "two"]);
      event.settle({ delivered: 2, dropped: 0, failed: false });
      expect(textOf(await answer)).toBe("Delivered 2 messages.");
    });

    it("refuses a call with no turn running", async () => {
      const { host } = await startHost(sequential);
      const client = await connect(host.offer(KEY, { http: true }), via);
      const result = await call(client, { messages: ["hello"] });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("nothing was sent");
    });

    it.each([
      ["more messages than max_bubbles", { messages: ["a", "b", "c", "d"] }],
      ["a next (sequential replies carry none)", { messages: ["a"], next: "stop" }],
      ["no messages", { messages: [] }],
      ["only blank messages", { messages: [" "] }],
    ])("refuses %s with an isError result and no event", async (_case, args) => {
      const { host } = await startHost(sequential);
      const client = await connect(host.offer(KEY, { http: true }), via);
      const turn = openTurn(host);
      const result = await call(client, args);
      expect(result.isError).toBe(true);
      expect(turn.events).toEqual([]);
    });
  });
});
