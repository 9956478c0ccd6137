import { from, of, throwError, type Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../../operators/delivery/agentEvent.js";
import {
  bubbleMessages,
  planStructuredReply,
  RESET_NOTICE_BUBBLE,
  structuredDeliveryIncomplete,
  type BubbleMessage,
  type StructuredReplyPlan,
} from "../../../../operators/delivery/envelope/envelopeReply.js";
import { paceBubbles } from "../../../../operators/delivery/flow/paceBubbles.js";
import type { StructuredOptions } from "../../../../operators/delivery/envelope/structuredBubbles.js";
import { emptyTranscript, reduceTranscript, withAgentError, type TurnTranscript } from "../../../../operators/delivery/turnTranscript.js";

const ERROR_LINE = "⚠️ something went wrong composing that reply";
const NOTICE = "⚠️ _Session expired, starting fresh..._";
const options: StructuredOptions = {
  schema: "openab.turn.v1",
  maxBubbles: 4,
  maxBubbleChars: 1200,
  onParseError: "fallback_text",
  parseErrorText: ERROR_LINE,
};
const E = (...texts: string[]): string =>
  JSON.stringify({ schema: "openab.turn.v1", messages: texts.map((text, i) => ({ id: `b${i + 1}`, text })), next: { type: "stop" } });
const SILENT = '{"schema":"openab.turn.v1","messages":[],"next":{"type":"silent"}}';

const turn = (...events: AgentEvent[]): TurnTranscript => events.reduce(reduceTranscript, emptyTranscript());
const text = (value: string): AgentEvent => ({ type: "text", text: value });
const reset: AgentEvent = { type: "session_reset" };
const toolRun = (id: string): AgentEvent[] => [
  { type: "tool_start", id, title: "search" },
  { type: "tool_done", id, status: "completed" },
];
const plan = (transcript: TurnTranscript, overrides: Partial<StructuredOptions> = {}) => planStructuredReply(transcript, { ...options, ...overrides });

interface Recorded {
  readonly sent: BubbleMessage[];
  readonly error?: string;
}

/**
 * Upstream's recording adapter: sends every message in order through `paceBubbles`, failing the
 * send at 0-based index `failOn`; a failure abandons the rest and fails the turn with the
 * structured error.
 */
function deliver(reply: StructuredReplyPlan, limit = 4096, failOn?: number): Recorded {
  const sent: BubbleMessage[] = [];
  let error: string | undefined;
  const send = (message: BubbleMessage, index: number): Observable<string> => {
    sent.push(message);
    return index === failOn ? throwError(() => new Error("gateway rejected the send")) : of(`m${index}`);
  };
  from(bubbleMessages(reply, limit))
    .pipe(paceBubbles(send, 0))
    .subscribe({
      error: () => {
        const failed = sent.at(-1)?.bubble ?? 0;
        error = structuredDeliveryIncomplete(failed, reply.bubbles.length);
      },
    });
  return error === undefined ? { sent } : { sent, error };
}
const texts = (recorded: Recorded) => recorded.sent.map((message) => message.text);

describe("structured delivery: adapter.rs structured_delivery_tests", () => {
  it("each_bubble_becomes_its_own_message_in_order", () => {
    const recorded = deliver(plan(turn(text(E("red", "green", "blue")))));
    expect(recorded).toStrictEqual({
      sent: [
        { bubble: 0, text: "red" },
        { bubble: 1, text: "green" },
        { bubble: 2, text: "blue" },
      ],
    });
  });

  it("a_multiline_bubble_stays_one_message", () => {
    expect(texts(deliver(plan(turn(text(E("alpha\nbeta\ngamma"))))))).toStrictEqual(["alpha\nbeta\ngamma"]);
  });

  it("silent_turn_sends_nothing", () => {
    const reply = plan(turn(text(SILENT)));
    expect(reply).toMatchObject({ bubbles: [], silent: true });
    expect(deliver(reply)).toStrictEqual({ sent: [] });
  });

  it("reply_to_applies_to_the_first_message_only", () => {
    const recorded = deliver(plan(turn(text(`[[reply_to:101]]\n${E("first", "second")}`))));
    expect(recorded.sent).toStrictEqual([
      { bubble: 0, text: "first", replyTo: "101" },
      { bubble: 1, text: "second" },
    ]);
  });

  it("a_failed_bubble_abandons_the_rest", () => {
    const recorded = deliver(plan(turn(text(E("one", "two", "three")))), 4096, 1);
    expect(texts(recorded)).toStrictEqual(["one", "two"]);
    expect(recorded.error).toBe("structured delivery incomplete: 1/3 bubbles delivered");
    expect(recorded.error).toContain("1/3");
  });

  it("an_over_long_bubble_splits_without_reordering", () => {
    const recorded = deliver(plan(turn(text(E("aaaaa\nbbbbb", "next")))), 10);
    expect(recorded.sent).toStrictEqual([
      { bubble: 0, text: "aaaaa" },
      { bubble: 0, text: "bbbbb" },
      { bubble: 1, text: "next" },
    ]);
  });

  it("session_reset_notice_gets_its_own_leading_bubble", () => {
    // The session pool's reset puts the notice at the head of the buffer, before the envelope.
    const reply = plan(turn(reset, text(E("hey"))));
    expect(reply.bubbles).toStrictEqual([NOTICE, "hey"]);
    expect(texts(deliver(reply))).toStrictEqual([NOTICE, "hey"]);
  });

  it("session_reset_notice_is_not_duplicated_after_a_tool_ran", () => {
    const reply = plan(turn(reset, text("checking..."), ...toolRun("t1"), text(E("hey"))));
    expect(reply.bubbles).toStrictEqual([NOTICE, "hey"]);
    expect(texts(deliver(reply))).toHaveLength(2);
  });

  it("delivery_directive_is_parsed_alongside_reply_to", () => {
    const reply = plan(turn(text(`[[reply_to:123]]\n[[delivery:openab.turn.v1]]\n${E("hi")}`)));
    expect(reply).toStrictEqual({ bubbles: ["hi"], silent: false, replyTo: "123", declaredSchema: "openab.turn.v1", next: { type: "stop" } });
  });

  it("delivery_directive_rejects_whitespace", () => {
    const reply = plan(turn(text(`[[delivery:has spaces]]\n${E("hi")}`)));
    expect(reply.declaredSchema).toBeUndefined();
    expect(reply.bubbles).toStrictEqual(["hi"]);
  });

  it("delivery_directive_last_value_wins", () => {
    const reply = plan(turn(text(`[[delivery:a.v1]]\n[[delivery:b.v2]]\n${E("hi")}`)));
    expect(reply.declaredSchema).toBe("b.v2");
    // Declared but not served: the caller warns, and the turn is still parsed against [delivery] schema.
    expect(reply.bubbles).toStrictEqual(["hi"]);
  });
});

describe("planStructuredReply: the body it parses (§8, §8.2)", () => {
  it("parses the text after the last tool; narration before it is never delivered", () => {
    const reply = plan(turn(text("[[reply_to:5]]\nlet me look"), ...toolRun("t1"), text("found it\n"), ...toolRun("t2"), text(E("done"))));
    expect(reply).toMatchObject({ bubbles: ["done"], replyTo: "5" });
  });

  it("keeps a directive header that follows a tool as body text, as the text path does", () => {
    const reply = plan(turn(text("checking"), ...toolRun("t1"), text(`[[reply_to:9]]\n${E("hi")}`)));
    expect(reply.replyTo).toBeUndefined();
    expect(reply.bubbles).toStrictEqual(["hi"]);
  });

  it("sends the error line when the envelope came before the last tool (the answer slice is empty)", () => {
    expect(plan(turn(text(E("early")), ...toolRun("t1"))).bubbles).toStrictEqual([ERROR_LINE]);
  });

  it("parses before any tool summary or reset notice could be prepended", () => {
    const reply = plan(turn(reset, text("one sec"), ...toolRun("t1"), text(E("a", "b"))));
    expect(reply.bubbles).toStrictEqual([NOTICE, "a", "b"]);
  });

  it("sends the reset notice only when something is sent", () => {
    expect(plan(turn(reset, text(SILENT)))).toMatchObject({ bubbles: [], silent: true, next: { type: "silent" } });
    expect(plan(turn(reset, text("plain prose")), { onParseError: "silent" })).toMatchObject({ bubbles: [], silent: true });
  });

  it("puts the notice ahead of a parse-error fallback too", () => {
    const reply = plan(turn(reset, text('one sec\n{"schema":"openab.turn.v1","messages":[{"id":"b1","te')));
    expect(reply).toMatchObject({
      bubbles: [NOTICE, "one sec"],
      parseFailure: { error: "envelope was truncated (unclosed object)", policy: "fallback_text" },
    });
    expect(RESET_NOTICE_BUBBLE).toBe(NOTICE);
  });

  it("passes the tool proposal, parse failure and silenced count on for the caller to log", () => {
    const tool = JSON.stringify({
      schema: "openab.turn.v1",
      messages: [{ id: "b1", text: "on it" }],
      next: { type: "tool", name: "gmail.search", arguments: { query: "lawyer" } },
    });
    expect(plan(turn(text(tool)))).toMatchObject({ bubbles: ["on it"], toolProposal: { name: "gmail.search", arguments: { query: "lawyer" } } });
    const declared = '{"schema":"openab.turn.v1","messages":[{"id":"b1","text":"x"}],"next":{"type":"silent"}}';
    expect(plan(turn(text(declared)))).toStrictEqual({ bubbles: [], silent: true, next: { type: "silent" }, silenced: 1 });
    expect(plan(turn(text("prose")), { onParseError: "error_message" })).toStrictEqual({
      bubbles: [ERROR_LINE],
      silent: false,
      parseFailure: { error: "no openab.turn.v1 envelope in turn output", policy: "error_message", kind: "not_structured" },
    });
  });

  it("sends the error line for an empty turn, as upstream (never `_(no response)_`)", () => {
    expect(plan(turn({ type: "end", stopReason: "end_turn", usage: { outputTokens: 0 } })).bubbles).toStrictEqual([ERROR_LINE]);
    expect(plan(turn(), { onParseError: "silent" })).toMatchObject({ bubbles: [], silent: true });
  });
});

describe("planStructuredReply: agent errors (§12 (e), turnstream)", () => {
  it("delivers what the policy makes of the partial output, and hands the error on to fail the turn", () => {
    const partial = withAgentError(turn(text('one sec\n{"schema":"openab.turn.v1","messages":[{"id":"b1","te')), new Error("Agent process died"));
    expect(plan(partial)).toMatchObject({ bubbles: ["one sec"], agentError: "Agent process died", parseFailure: { kind: "truncated" } });
  });

  it("delivers a complete envelope and still fails the turn", () => {
    const complete = withAgentError(turn(text(E("done"))), new Error("Agent exceeded hard timeout (1800s)"));
    expect(plan(complete)).toMatchObject({ bubbles: ["done"], agentError: "Agent exceeded hard timeout (1800s)" });
  });

  it("shows the error as the text path does when the agent said nothing", () => {
    const died = withAgentError(turn(), new Error("Agent process died"));
    expect(plan(died)).toStrictEqual({ bubbles: ["⚠️ Agent process died"], silent: false, agentError: "Agent process died" });
    expect(plan(withAgentError(turn(reset), new Error("Agent process died"))).bubbles).toStrictEqual([NOTICE, "⚠️ Agent process died"]);
    expect(plan(withAgentError(turn(text("[[reply_to:7]]\n  ")), new Error("boom")))).toMatchObject({ bubbles: ["⚠️ boom"], replyTo: "7" });
  });
});

describe("bubbleMessages", () => {
  it("skips blank chunks and quotes the first message actually sent", () => {
    const messages = bubbleMessages({ bubbles: ["", "  ", "hi", "there"], replyTo: "9" }, 100);
    expect(messages).toStrictEqual([
      { bubble: 2, text: "hi", replyTo: "9" },
      { bubble: 3, text: "there" },
    ]);
  });

  it("numbers bubbles counting the reset notice, and quotes the notice when it comes first", () => {
    const reply = plan(turn(reset, text(`[[reply_to:3]]\n${E("hey")}`)));
    // The notice heads the buffer, so the header is not at the start: no directive (upstream too).
    expect(reply.replyTo).toBeUndefined();
    expect(bubbleMessages({ bubbles: [NOTICE, "hey"], replyTo: "3" }, 4096)).toStrictEqual([
      { bubble: 0, text: NOTICE, replyTo: "3" },
      { bubble: 1, text: "hey" },
    ]);
  });

  it("reports delivered/total with the notice counted", () => {
    const reply = plan(turn(reset, text(E("a", "b"))));
    expect(deliver(reply, 4096, 2).error).toBe("structured delivery incomplete: 2/3 bubbles delivered");
  });
});
