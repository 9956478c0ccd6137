import { describe, expect, it } from "vitest";
import { defaultBackoff, planReconnect, type BackoffPolicy, type ConnectionEnd } from "../../src/gateway/reconnectBackoff.js";

/**
 * Attempt start times, in virtual ms, against a gateway whose every connection ends as `end` says,
 * until `windowMs`: the connector's loop with the clock replaced by a sum.
 */
function attemptTimes(policy: BackoffPolicy, windowMs: number, end: ConnectionEnd): number[] {
  const times: number[] = [];
  let now = 0;
  let backoffMs = policy.initialMs;
  while (now < windowMs) {
    times.push(now);
    const plan = planReconnect(backoffMs, end, policy);
    backoffMs = plan.nextBackoffMs;
    now += (end.opened ? end.upMs : 0) + plan.delayMs;
  }
  return times;
}

describe("planReconnect", () => {
  it("waits and doubles after a failed connect: 1, 2, 4, 8, 16, 30, 30 s (upstream)", () => {
    const delays: number[] = [];
    let backoffMs = defaultBackoff.initialMs;
    for (let n = 0; n < 7; n += 1) {
      const plan = planReconnect(backoffMs, { opened: false }, defaultBackoff);
      delays.push(plan.delayMs);
      backoffMs = plan.nextBackoffMs;
    }
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
  });

  it("counts a connection that opened and closed within 10 s as a failure: it waits and doubles too", () => {
    expect(planReconnect(4_000, { opened: true, upMs: 0 }, defaultBackoff)).toEqual({ delayMs: 4_000, nextBackoffMs: 8_000, healthy: false });
    expect(planReconnect(30_000, { opened: true, upMs: 9_999 }, defaultBackoff)).toEqual({ delayMs: 30_000, nextBackoffMs: 30_000, healthy: false });
  });

  it("resets the backoff and reconnects at once after a connection that stayed up 10 s (as upstream)", () => {
    expect(planReconnect(16_000, { opened: true, upMs: 10_000 }, defaultBackoff)).toEqual({ delayMs: 0, nextBackoffMs: 1_000, healthy: true });
  });

  it("gives an accept-then-close gateway 4 attempts in 10 s (at 0, 1, 3, 7 s) with the default backoff", () => {
    expect(attemptTimes(defaultBackoff, 10_000, { opened: true, upMs: 0 })).toEqual([0, 1_000, 3_000, 7_000]);
  });

  it("settles at one attempt per 30 s against a gateway that keeps accepting and closing", () => {
    const times = attemptTimes(defaultBackoff, 600_000, { opened: true, upMs: 5 });
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    expect(gaps.slice(0, 6)).toEqual([1_005, 2_005, 4_005, 8_005, 16_005, 30_005]);
    expect(new Set(gaps.slice(5))).toEqual(new Set([30_005]));
  });

  it("reconnects at once, every time, to a gateway whose connections each last 10 s", () => {
    expect(attemptTimes(defaultBackoff, 40_000, { opened: true, upMs: 10_000 })).toEqual([0, 10_000, 20_000, 30_000]);
  });

  it("follows injected settings: 50 ms doubling to 200 ms", () => {
    const policy = { initialMs: 50, maxMs: 200, healthyAfterMs: 1_000 };
    expect(attemptTimes(policy, 1_000, { opened: false })).toEqual([0, 50, 150, 350, 550, 750, 950]);
  });
});
