import { describe, expect, it } from "vitest";
import type { OutboundCommand } from "../../operators/delivery/outboundMessage.js";
import { AGENT_EXIT_CAUSES, MESSAGE_KINDS, type MessageKind } from "../../src/metrics/instruments.js";
import { agentExitCause, LOCAL_SEND_FAILURES, messageKind, SEND_FAILURE_REASONS, sendFailureReason } from "../../src/metrics/metricLabels.js";

// A Record over the union: a new OutboundCommand fails to compile here until its kind is decided.
const kindOf: Record<OutboundCommand, MessageKind> = {
  create_topic: "message",
  edit_message: "edit",
  delete_message: "delete",
  add_reaction: "reaction",
  remove_reaction: "reaction",
  typing: "typing",
  answer_tap: "tap",
  notice: "message",
};

describe("messageKind", () => {
  it.each(Object.entries(kindOf) as Array<[OutboundCommand, MessageKind]>)("labels %s as %s", (command, kind) => {
    expect(messageKind(command)).toBe(kind);
  });

  it("labels a plain send (no command) as message", () => {
    expect(messageKind(undefined)).toBe("message");
  });

  it("only ever answers a declared kind, and every kind is reachable", () => {
    const kinds = new Set([undefined, ...Object.keys(kindOf)].map((command) => messageKind(command as OutboundCommand | undefined)));
    expect([...kinds].sort()).toEqual([...MESSAGE_KINDS].sort());
  });
});

describe("sendFailureReason", () => {
  it.each([...LOCAL_SEND_FAILURES])("keeps turnstream's own code %s", (code) => {
    expect(sendFailureReason(code)).toBe(code);
  });

  it.each([
    ["a gateway's code", "rate_limited"],
    ["another gateway's code", "rejected"],
    ["the empty string", ""],
    ["a 64-character code (the longest an edge relays)", "x".repeat(64)],
    ["a local code in another case", "NO_GATEWAY"],
    ["a local code with a space", "timeout "],
    ["the label itself", "gateway_rejected"],
  ])("maps %s to gateway_rejected", (_what, code) => {
    expect(sendFailureReason(code)).toBe("gateway_rejected");
  });

  it("answers only labels of SEND_FAILURE_REASONS: the local codes and gateway_rejected, each once", () => {
    expect(SEND_FAILURE_REASONS).toEqual([...LOCAL_SEND_FAILURES, "gateway_rejected"]);
    expect(new Set(SEND_FAILURE_REASONS).size).toBe(SEND_FAILURE_REASONS.length);
    for (const code of [...LOCAL_SEND_FAILURES, "rate_limited", "", "x".repeat(64)]) {
      expect(SEND_FAILURE_REASONS).toContain(sendFailureReason(code));
    }
  });
});

describe("agentExitCause", () => {
  it("is stopped whenever turnstream stopped it, however the process then ended", () => {
    expect(agentExitCause({ code: null, signal: "SIGTERM" }, true)).toBe("stopped");
    expect(agentExitCause({ code: null, signal: "SIGKILL" }, true)).toBe("stopped");
    expect(agentExitCause({ code: 0, signal: null }, true)).toBe("stopped");
    expect(agentExitCause({ code: 1, signal: null }, true)).toBe("stopped");
  });

  it("is exited for code 0 on its own", () => {
    expect(agentExitCause({ code: 0, signal: null }, false)).toBe("exited");
  });

  it.each([1, 3, 127, 255])("is failed for code %i on its own", (code) => {
    expect(agentExitCause({ code, signal: null }, false)).toBe("failed");
  });

  it.each(["SIGKILL", "SIGTERM", "SIGSEGV"])("is signal for code null and %s, a signal turnstream did not send", (signal) => {
    expect(agentExitCause({ code: null, signal }, false)).toBe("signal");
  });

  it("answers only AGENT_EXIT_CAUSES, and each is reachable", () => {
    const causes = new Set([
      agentExitCause({ code: null, signal: "SIGTERM" }, true),
      agentExitCause({ code: 0, signal: null }, false),
      agentExitCause({ code: 2, signal: null }, false),
      agentExitCause({ code: null, signal: "SIGKILL" }, false),
    ]);
    expect([...causes].sort()).toEqual([...AGENT_EXIT_CAUSES].sort());
  });
});
