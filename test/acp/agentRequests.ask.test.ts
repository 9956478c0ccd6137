import { describe, expect, it } from "vitest";
import type { QuestionEvent } from "../../operators/delivery/agentEvent.js";
import { agentRequestAnswerer } from "../../src/acp/agentRequests.js";
import type { PermissionAsking } from "../../src/acp/permissionAsk.js";
import { captureLogs } from "../helpers/logCapture.js";

// `permission_mode = "ask"` at the ACP edge: the request becomes a question for the session's
// running turn, and the JSON-RPC answer waits for the question's outcome.

const options = [
  { optionId: "a1", name: "Allow once", kind: "allow_once" },
  { optionId: "a2", name: "Always", kind: "allow_always" },
  { optionId: "r1", name: "Reject", kind: "reject_once" },
];
const request = { sessionId: "s1", toolCall: { toolCallId: "c1", title: "Run ls", kind: "execute", rawInput: { command: "ls -la" }, locations: [{ path: "/w/a.ts" }, { bad: 1 }] }, options };

function answerer(overrides: Partial<PermissionAsking> = {}, turnRuns = true) {
  const asked: QuestionEvent[] = [];
  const { logger, records } = captureLogs("debug");
  const answers = agentRequestAnswerer({
    permissionMode: "ask",
    asking: {
      fallback: "reject",
      timeoutMs: 300_000,
      places: { workspaceRoot: "/w" },
      ask: (_sessionId, event) => {
        if (!turnRuns) return false;
        asked.push(event);
        return true;
      },
      ...overrides,
    },
    isCancelled: () => false,
    logger,
  });
  return { answers, asked, records };
}

describe('agentRequestAnswerer under permission_mode = "ask"', () => {
  it("hands the request to the running turn as a question, and answers with the chosen option's id", async () => {
    const { answers, asked, records } = answerer();
    const answer = answers.answer("session/request_permission", request) as Promise<unknown>;
    expect(asked).toHaveLength(1);
    const question = asked[0] as QuestionEvent;
    expect(question).toMatchObject({ kind: "permission", timeoutMs: 300_000, fallbackLabel: "Reject" });
    expect(question.questions[0]?.options.map((o) => o.label)).toEqual(["Allow once", "Always", "Reject"]);
    expect(question.questions[0]?.text).toContain("🖥️ Running ls -la");
    expect(question.questions[0]?.text).toContain("📄 a.ts");
    question.settle([{ kind: "answered", chosen: [1], by: "Ann" }]);
    await expect(answer).resolves.toEqual({ outcome: { outcome: "selected", optionId: "a2" } });
    expect(records.find((r) => r.msg === "permission asked in the chat")).toMatchObject({ mode: "ask", title: "Run ls", options: 3 });
    expect(records.find((r) => r.msg === "permission answered in the chat")).toMatchObject({ how: "answered", outcome: { outcome: "selected", optionId: "a2" } });
  });

  it("a timeout answers with permission_fallback's pick", async () => {
    const { answers, asked } = answerer({ fallback: "allow_once" });
    const answer = answers.answer("session/request_permission", request) as Promise<unknown>;
    expect(asked[0]?.fallbackLabel).toBe("Allow once");
    asked[0]?.settle([{ kind: "timeout" }]);
    await expect(answer).resolves.toEqual({ outcome: { outcome: "selected", optionId: "a1" } });
  });

  it("a cancelled turn answers cancelled, once: a later settle changes nothing", async () => {
    const { answers, asked, records } = answerer();
    const answer = answers.answer("session/request_permission", request) as Promise<unknown>;
    answers.cancelAsked("s1");
    asked[0]?.settle([{ kind: "answered", chosen: [0], by: "Ann" }]);
    await expect(answer).resolves.toEqual({ outcome: { outcome: "cancelled" } });
    expect(records.filter((r) => r.msg === "permission answered in the chat")).toHaveLength(1);
  });

  it("with no turn running on the session, the fallback answers at once (reason no_turn)", () => {
    const { answers, records } = answerer({}, false);
    expect(answers.answer("session/request_permission", request)).toEqual({ outcome: { outcome: "selected", optionId: "r1" } });
    expect(records.find((r) => r.msg === "auto-respond permission")).toMatchObject({ mode: "ask", reason: "no_turn" });
    expect(records.some((r) => r.msg === "permission answered in the chat" || r.msg === "permission asked in the chat")).toBe(false);
  });

  it("a legacy request without options offers Allow (allow_once) and Reject (cancelled)", async () => {
    const { answers, asked } = answerer();
    const allow = answers.answer("session/request_permission", { sessionId: "s1", toolCall: { title: "x" } }) as Promise<unknown>;
    expect(asked[0]?.questions[0]?.options.map((o) => o.label)).toEqual(["Allow", "Reject"]);
    asked[0]?.settle([{ kind: "answered", chosen: [0], by: "Ann" }]);
    await expect(allow).resolves.toEqual({ outcome: { outcome: "selected", optionId: "allow_once" } });
    const reject = answers.answer("session/request_permission", { sessionId: "s1" }) as Promise<unknown>;
    asked[1]?.settle([{ kind: "answered", chosen: [1], by: "Ann" }]);
    await expect(reject).resolves.toEqual({ outcome: { outcome: "cancelled" } });
  });

  it("a request for a cancelled turn is answered cancelled without asking", () => {
    const { logger } = captureLogs("debug");
    const asked: QuestionEvent[] = [];
    const answers = agentRequestAnswerer({ permissionMode: "ask", asking: { fallback: "reject", timeoutMs: 1, ask: (_s, e) => asked.push(e) > 0 }, isCancelled: () => true, logger });
    expect(answers.answer("session/request_permission", request)).toEqual({ outcome: { outcome: "cancelled" } });
    expect(asked).toEqual([]);
  });
});
