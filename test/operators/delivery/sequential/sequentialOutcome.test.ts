import { describe, expect, it } from "vitest";
import type { SequentialReport } from "../../../../operators/delivery/sequential/sequentialBubbles.js";
import {
  sequentialAgentFailedError,
  sequentialIncompleteError,
  sequentialOutcome,
} from "../../../../operators/delivery/sequential/sequentialOutcome.js";
import { emptyTranscript, type TurnTranscript } from "../../../../operators/delivery/turnTranscript.js";

interface Row {
  readonly sent: number;
  readonly failed?: boolean;
  readonly capped?: boolean;
  readonly agentError?: string;
  readonly transcript?: Partial<TurnTranscript>;
}

/** A report as `sequentialBubbles` emits it for that row of the truth table. */
function reportOf({ sent, failed = false, capped = false, agentError, transcript = {} }: Row): SequentialReport {
  return {
    bubblesSent: sent,
    filesSent: 0,
    capped,
    dropped: capped ? 1 : 0,
    ...(capped ? { firstDroppedId: "bubble_9" } : {}),
    ...(failed ? { sendError: new Error("ack timeout"), failedBubbleId: `bubble_${sent + 1}` } : {}),
    transcript: {
      ...emptyTranscript(),
      buffer: "some chunk text",
      ...(agentError === undefined ? { stopReason: "end_turn" } : { agentError }),
      ...transcript,
    },
  };
}

const AGENT_ERROR = "JSON-RPC error -32000: simulated agent failure";

describe("sequentialOutcome (delivery-and-triage.md §12.1)", () => {
  describe("not attempted: the text path decides", () => {
    it("no bubble, no agent error → text fallback", () => {
      expect(sequentialOutcome(reportOf({ sent: 0 }))).toStrictEqual({ kind: "text_fallback" });
    });

    it("no bubble, agent error → text fallback (the text path shows ⚠️ <error>)", () => {
      expect(sequentialOutcome(reportOf({ sent: 0, agentError: AGENT_ERROR }))).toStrictEqual({ kind: "text_fallback" });
    });

    it("an empty turn → text fallback", () => {
      expect(sequentialOutcome({ bubblesSent: 0, filesSent: 0, capped: false, dropped: 0, transcript: emptyTranscript() })).toStrictEqual({
        kind: "text_fallback",
      });
    });
  });

  describe("attempted", () => {
    it("the first send failed → failed with 0 bubble(s) delivered, never a text fallback (fix (a))", () => {
      expect(sequentialOutcome(reportOf({ sent: 0, failed: true }))).toStrictEqual({
        kind: "failed",
        error: "sequential delivery incomplete: 0 bubble(s) delivered",
      });
    });

    it("the first send failed and the agent failed too → the send failure is reported", () => {
      expect(sequentialOutcome(reportOf({ sent: 0, failed: true, agentError: AGENT_ERROR }))).toStrictEqual({
        kind: "failed",
        error: "sequential delivery incomplete: 0 bubble(s) delivered",
      });
    });

    it("≥ 1 sent, clean → success", () => {
      expect(sequentialOutcome(reportOf({ sent: 3 }))).toStrictEqual({ kind: "success" });
    });

    it("≥ 1 sent, capped → success (the cap is configuration working, not a fault)", () => {
      expect(sequentialOutcome(reportOf({ sent: 4, capped: true }))).toStrictEqual({ kind: "success" });
    });

    it("≥ 1 sent, then a send failed → failed with the delivered count", () => {
      expect(sequentialOutcome(reportOf({ sent: 2, failed: true }))).toStrictEqual({
        kind: "failed",
        error: "sequential delivery incomplete: 2 bubble(s) delivered",
      });
    });

    it("a failure outranks a cap", () => {
      expect(sequentialOutcome(reportOf({ sent: 3, failed: true, capped: true }))).toStrictEqual({
        kind: "failed",
        error: "sequential delivery incomplete: 3 bubble(s) delivered",
      });
    });

    it("a send failure outranks an agent error (the caller logs the agent error)", () => {
      expect(sequentialOutcome(reportOf({ sent: 2, failed: true, capped: true, agentError: AGENT_ERROR }))).toStrictEqual({
        kind: "failed",
        error: "sequential delivery incomplete: 2 bubble(s) delivered",
      });
    });

    it("the agent failed after ≥ 1 bubble → failed, naming the bubbles and the error (fix (b), seqhalf)", () => {
      expect(sequentialOutcome(reportOf({ sent: 2, agentError: AGENT_ERROR }))).toStrictEqual({
        kind: "failed",
        error: "sequential turn failed after 2 bubble(s): JSON-RPC error -32000: simulated agent failure",
      });
    });

    it("the agent failed after a capped turn → still failed", () => {
      expect(sequentialOutcome(reportOf({ sent: 4, capped: true, agentError: "Agent process died" }))).toStrictEqual({
        kind: "failed",
        error: "sequential turn failed after 4 bubble(s): Agent process died",
      });
    });

    it.each(["cancelled", "max_tokens", "refusal", "max_turn_requests"])("stopReason %s is not an agent error → success", (stopReason) => {
      expect(sequentialOutcome(reportOf({ sent: 1, transcript: { stopReason } }))).toStrictEqual({ kind: "success" });
    });
  });

  describe("upstream's truth table (sequential_outcome tests), as turnstream keeps it", () => {
    it.each([
      { sent: 4, failed: false, capped: true, ok: true },
      { sent: 2, failed: true, capped: false, ok: false },
      { sent: 3, failed: true, capped: true, ok: false },
      { sent: 3, failed: false, capped: false, ok: true },
    ])("sent $sent, failed $failed, capped $capped → ok $ok", ({ sent, failed, capped, ok }) => {
      const outcome = sequentialOutcome(reportOf({ sent, failed, capped }));
      expect(outcome.kind).toBe(ok ? "success" : "failed");
      if (outcome.kind === "failed") expect(outcome.error).toContain(`${sent} bubble(s) delivered`);
    });
  });

  it("treats a send error without a bubble id as a failed send, and a bubble id without an error too", () => {
    const base: SequentialReport = { bubblesSent: 1, filesSent: 0, capped: false, dropped: 0, transcript: emptyTranscript() };
    expect(sequentialOutcome({ ...base, sendError: new Error("x") })).toStrictEqual({
      kind: "failed",
      error: "sequential delivery incomplete: 1 bubble(s) delivered",
    });
    expect(sequentialOutcome({ ...base, failedBubbleId: "" })).toStrictEqual({
      kind: "failed",
      error: "sequential delivery incomplete: 1 bubble(s) delivered",
    });
  });

  it("exposes the two error texts", () => {
    expect(sequentialIncompleteError(5)).toBe("sequential delivery incomplete: 5 bubble(s) delivered");
    expect(sequentialAgentFailedError(1, "Agent exceeded hard timeout (300s)")).toBe(
      "sequential turn failed after 1 bubble(s): Agent exceeded hard timeout (300s)",
    );
  });
});
