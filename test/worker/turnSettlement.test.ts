import { describe, expect, it } from "vitest";
import { PoolWaitTimeoutError } from "../../src/acp/errors.js";
import { StageError } from "../../src/pipeline/errors.js";
import { StateStoreError } from "../../src/state/errors.js";
import { NoAgentError } from "../../src/turn/errors.js";
import { defersTurn, eventFate, failureReason, turnOutcome, type SettledFacts } from "../../src/worker/turnSettlement.js";

describe("turnSettlement", () => {
  const outage = new Error("send failed", { cause: new StateStoreError("ledger", "begin", "telegram:a") });

  it("defers only a failure on shared state before anything was delivered", () => {
    expect(defersTurn(false, 0, outage)).toBe(true);
    expect(defersTurn(false, 1, outage)).toBe(false);
    expect(defersTurn(true, 0, undefined)).toBe(false);
    expect(defersTurn(false, 0, new Error("send failed"))).toBe(false);
  });

  const facts = (overrides: Partial<SettledFacts>): SettledFacts => ({ ok: true, repeated: false, redelivery: false, handled: true, suppressed: false, ...overrides });

  it("counts a turn's events by what became of them", () => {
    expect(eventFate(facts({}))).toBe("turn");
    expect(eventFate(facts({ ok: false }))).toBe("turn");
    // An answer to a question asked in the chat: no turn ran (a failed one counts as a turn all the same).
    expect(eventFate(facts({ answer: true }))).toBe("answer");
    expect(eventFate(facts({ answer: true, ok: false }))).toBe("turn");
    // A failure before any handler is a failed turn all the same.
    expect(eventFate(facts({ ok: false, handled: false }))).toBe("turn");
    expect(eventFate(facts({ ok: false, repeated: true }))).toBe("duplicate");
    expect(eventFate(facts({ redelivery: true }))).toBe("duplicate");
    expect(eventFate(facts({ ok: false, redelivery: true }))).toBe("turn");
    expect(eventFate(facts({ handled: false, suppressed: true }))).toBe("suppressed");
    expect(eventFate(facts({ handled: false }))).toBe("dropped");
  });

  it("names the outcome and a failure's reason", () => {
    expect([turnOutcome(true, false), turnOutcome(true, true), turnOutcome(false, true)]).toEqual(["completed", "agent_error", "failed"]);
    expect(failureReason(new StageError("beforeDispatch"))).toBe("stage_failed");
    expect(failureReason(new NoAgentError())).toBe("no_agent");
    expect(failureReason(new PoolWaitTimeoutError(3, 1_000))).toBe("pool_wait_timeout");
    expect(failureReason(new Error("boom"))).toBe("turn_failed");
  });
});
