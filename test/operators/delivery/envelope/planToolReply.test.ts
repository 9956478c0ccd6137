import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../../operators/delivery/agentEvent.js";
import { planStructuredReply, RESET_NOTICE_BUBBLE } from "../../../../operators/delivery/envelope/envelopeReply.js";
import type { SequentialReport } from "../../../../operators/delivery/sequential/sequentialBubbles.js";
import { sequentialOutcome } from "../../../../operators/delivery/sequential/sequentialOutcome.js";
import type { StructuredOptions } from "../../../../operators/delivery/envelope/structuredBubbles.js";
import { emptyTranscript, reduceTranscript, withAgentError, type TurnTranscript } from "../../../../operators/delivery/turnTranscript.js";
import { renderEnvelope } from "../../../../src/agent/renderEnvelope.js";

const ERROR_LINE = "⚠️ something went wrong composing that reply";
const options: StructuredOptions = {
  schema: "openab.turn.v1",
  maxBubbles: 4,
  maxBubbleChars: 1200,
  onParseError: "fallback_text",
  parseErrorText: ERROR_LINE,
};

/** A `reply` call as the tool (src/mcp/replyBinding.ts) records it: the rendered envelope's JSON. */
const replyPlan = (input: { messages: string[]; next?: string }, maxBubbles = 4): AgentEvent => ({
  type: "reply_plan",
  envelope: JSON.stringify(renderEnvelope(input, { maxBubbles }).envelope),
});
const text = (value: string): AgentEvent => ({ type: "text", text: value });
const turn = (...events: AgentEvent[]): TurnTranscript => events.reduce(reduceTranscript, emptyTranscript());
const TEXT_ENVELOPE = JSON.stringify({ schema: "openab.turn.v1", messages: [{ id: "t1", text: "from the text" }], next: { type: "stop" } });

describe("planStructuredReply with the reply tool's envelope", () => {
  it("delivers a call's three messages as three bubbles, in order", () => {
    expect(planStructuredReply(turn(replyPlan({ messages: ["one", "two", "three"] }), { type: "end", stopReason: "end_turn" }), options)).toStrictEqual({
      bubbles: ["one", "two", "three"],
      silent: false,
      fromTool: "tool",
      next: { type: "stop" },
    });
  });

  it("sends nothing for a silent call", () => {
    const plan = planStructuredReply(turn(replyPlan({ messages: [], next: "silent" })), options);
    expect(plan).toMatchObject({ bubbles: [], silent: true, fromTool: "tool", next: { type: "silent" } });
  });

  it("leads with the reset notice on a reset turn, and shows it not at all when the call is silent", () => {
    expect(planStructuredReply(turn({ type: "session_reset" }, replyPlan({ messages: ["hi"] })), options).bubbles).toStrictEqual([RESET_NOTICE_BUBBLE, "hi"]);
    expect(planStructuredReply(turn({ type: "session_reset" }, replyPlan({ messages: [], next: "silent" })), options).bubbles).toStrictEqual([]);
  });

  it("delivers the tool's bubbles over an envelope in the text, marked over_envelope", () => {
    const plan = planStructuredReply(turn(text(TEXT_ENVELOPE), replyPlan({ messages: ["from the tool"] })), options);
    expect(plan).toMatchObject({ bubbles: ["from the tool"], silent: false, fromTool: "over_envelope" });
  });

  it("lets the tool win over an envelope the text wrote after the call", () => {
    const plan = planStructuredReply(turn(replyPlan({ messages: ["from the tool"] }), text(TEXT_ENVELOPE)), options);
    expect(plan).toMatchObject({ bubbles: ["from the tool"], fromTool: "over_envelope" });
  });

  it("lets the tool win over prose, directives included: fromTool tool, no reply_to", () => {
    const plan = planStructuredReply(turn(text("[[reply_to:m42]]\nLet me answer that. "), replyPlan({ messages: ["the answer"] }), text("Done.")), options);
    expect(plan).toStrictEqual({ bubbles: ["the answer"], silent: false, fromTool: "tool", next: { type: "stop" } });
  });

  it("marks a text that held a mangled envelope as over_envelope too, and reports no parse failure for it", () => {
    const plan = planStructuredReply(turn(text('{"schema":"openab.turn.v1","messages":[{'), replyPlan({ messages: ["ok"] })), options);
    expect(plan).toMatchObject({ bubbles: ["ok"], fromTool: "over_envelope" });
    expect(plan.parseFailure).toBeUndefined();
  });

  it("keeps the agent's error: the tool's bubbles go out, then the turn fails with it", () => {
    const failed = withAgentError(turn(replyPlan({ messages: ["partial", "answer"] })), new Error("Agent process died"));
    expect(planStructuredReply(failed, options)).toStrictEqual({
      bubbles: ["partial", "answer"],
      silent: false,
      fromTool: "tool",
      next: { type: "stop" },
      agentError: "Agent process died",
    });
  });

  it("keeps the agent's error on a silent call too", () => {
    const failed = withAgentError(turn(replyPlan({ messages: [], next: "silent" })), new Error("boom"));
    expect(planStructuredReply(failed, options)).toMatchObject({ bubbles: [], silent: true, agentError: "boom" });
  });

  it("plans a tool envelope over the broker's limits as a parse failure, never delivering its JSON", () => {
    const plan = planStructuredReply(turn(replyPlan({ messages: ["1", "2", "3", "4", "5"] }, 5)), options);
    expect(plan.bubbles).toStrictEqual([ERROR_LINE]);
    expect(plan.parseFailure).toMatchObject({ policy: "fallback_text" });
    expect(plan.fromTool).toBe("tool");
  });

  it("keeps the text path for a turn that never called the tool", () => {
    const plan = planStructuredReply(turn(text(TEXT_ENVELOPE)), options);
    expect(plan.bubbles).toStrictEqual(["from the text"]);
    expect(plan.fromTool).toBeUndefined();
  });
});

describe("reduceTranscript with reply tool events", () => {
  it("keeps the FIRST reply_plan as the tool envelope and counts every call", () => {
    const first = replyPlan({ messages: ["first"] });
    const second = replyPlan({ messages: ["second"] });
    const transcript = turn(first, text("between"), second);
    expect(transcript.toolEnvelope).toBe((first as { envelope: string }).envelope);
    expect(transcript.replyCalls).toBe(2);
    expect(transcript.buffer).toBe("between");
    expect(planStructuredReply(transcript, options).bubbles).toStrictEqual(["first"]);
  });

  it("counts reply_bubbles calls without setting an envelope", () => {
    const transcript = turn({ type: "reply_bubbles", messages: ["a"], settle: () => undefined }, { type: "reply_bubbles", messages: [], settle: () => undefined });
    expect(transcript.replyCalls).toBe(2);
    expect(transcript.toolEnvelope).toBeUndefined();
  });

  it("starts at 0 calls", () => {
    expect(emptyTranscript().replyCalls).toBe(0);
  });
});

describe("sequentialOutcome when the reply tool was called", () => {
  const report = (transcript: Partial<TurnTranscript>, bubblesSent = 0): SequentialReport => ({
    bubblesSent,
    filesSent: 0,
    capped: false,
    dropped: 0,
    transcript: { ...emptyTranscript(), buffer: "the model's prose", stopReason: "end_turn", ...transcript },
  });

  it("never falls back to text when a call was made, even with nothing sent", () => {
    expect(sequentialOutcome(report({ replyCalls: 1 }))).toStrictEqual({ kind: "success" });
  });

  it("still falls back to text when the tool was never called and nothing was sent", () => {
    expect(sequentialOutcome(report({ replyCalls: 0 }))).toStrictEqual({ kind: "text_fallback" });
  });

  it("fails a turn whose agent failed after a call that sent nothing, naming 0 bubbles", () => {
    expect(sequentialOutcome(report({ replyCalls: 1, agentError: "Agent process died" }))).toStrictEqual({
      kind: "failed",
      error: "sequential turn failed after 0 bubble(s): Agent process died",
    });
  });
});
