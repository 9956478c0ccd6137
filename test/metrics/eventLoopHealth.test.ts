import { describe, expect, it } from "vitest";
import { EventLoopHealth } from "../../src/metrics/eventLoopHealth.js";

/** A health check on a clock the test moves; heartbeats are called by hand (never `start()`). */
function withClock(stallLimitMs = 5_000) {
  let now = 1_000_000;
  const health = new EventLoopHealth({ now: () => now, heartbeatMs: 500, stallLimitMs });
  return {
    health,
    advance: (ms: number) => (now += ms),
    /** Heartbeats on time for `ms`. */
    steady(ms: number) {
      for (let t = 0; t < ms; t += 500) {
        now += 500;
        health.beat();
      }
    },
  };
}

describe("EventLoopHealth", () => {
  it("is healthy while heartbeats come on time", () => {
    const { health, steady } = withClock();
    steady(3_000);
    expect(health.check()).toEqual({ healthy: true, stallMs: 0 });
  });

  it("reports a stall longer than the limit for 10 s after it ended, then forgets it", () => {
    const { health, advance, steady } = withClock();
    advance(6_500); // the loop was blocked: this heartbeat is 6 s late
    health.beat();
    expect(health.check()).toEqual({ healthy: false, stallMs: 6_000 });
    steady(9_500);
    expect(health.check().healthy).toBe(false);
    steady(1_000);
    expect(health.check()).toEqual({ healthy: true, stallMs: 0 });
  });

  it("a stall within the limit is reported but healthy", () => {
    const { health, advance } = withClock();
    advance(3_500);
    health.beat();
    expect(health.check()).toEqual({ healthy: true, stallMs: 3_000 });
  });

  it("a stall still going on when the probe runs counts too", () => {
    const { health, advance } = withClock();
    advance(7_000); // no heartbeat since: the probe itself waited for the loop
    expect(health.check()).toEqual({ healthy: false, stallMs: 6_500 });
  });
});
