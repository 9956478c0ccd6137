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

describe("EventLoopHealth lag (perf_hooks' delay monitors, stood in for)", () => {
  /** Two monitors, as EventLoopHealth makes them; `max` in ns as perf_hooks reports it. */
  function withMonitors() {
    let now = 1_000_000;
    const monitors: { max: number; resets: number; enabled: boolean }[] = [];
    const health = new EventLoopHealth({
      now: () => now,
      heartbeatMs: 500,
      delayMonitor: () => {
        const monitor = { max: 0, resets: 0, enabled: false };
        monitors.push(monitor);
        return {
          get max() {
            return monitor.max;
          },
          reset: () => {
            monitor.max = 0;
            monitor.resets += 1;
          },
          enable: () => (monitor.enabled = true),
          disable: () => !(monitor.enabled = false),
        };
      },
    });
    return { health, monitors, beat: () => ((now += 500), health.beat()) };
  }

  it("is the longest delay beyond the 10 ms resolution either monitor saw within 10 s, then forgets it", () => {
    const { health, monitors, beat } = withMonitors();
    expect(monitors).toHaveLength(2);
    expect(health.lagMs()).toBe(0);
    (monitors[1] as { max: number }).max = 57e6; // a 10 ms timer fired 47 ms late
    expect(health.lagMs()).toBe(47); // still in the monitor, not read by a heartbeat yet
    beat(); // reads and resets monitor 0
    beat(); // reads and resets monitor 1: its 57 ms is remembered
    expect(monitors.map((m) => m.resets)).toEqual([1, 1]);
    expect(health.lagMs()).toBe(47);
    for (let i = 0; i < 20; i++) beat();
    expect(health.lagMs()).toBe(47); // 10 s after it was read
    beat(); // 10.5 s
    expect(health.lagMs()).toBe(0);
  });

  it("monitors run only while started", () => {
    const { health, monitors } = withMonitors();
    health.start();
    expect(monitors.map((m) => m.enabled)).toEqual([true, true]);
    health.stop();
    expect(monitors.map((m) => m.enabled)).toEqual([false, false]);
  });
});
