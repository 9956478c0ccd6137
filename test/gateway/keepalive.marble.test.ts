import { describe, expect, it } from "vitest";
import { keepalive, keepaliveStart, keepaliveStep } from "../../src/gateway/keepalive.js";
import { testScheduler } from "../helpers/marbles.js";

const ping = { kind: "ping" } as const;
const abandon = { kind: "abandon", missedPongs: 2 } as const;

describe("keepaliveStep", () => {
  it("pings at each tick, and abandons at the tick after two pings went unanswered", () => {
    const first = keepaliveStep(keepaliveStart, "tick", 2);
    const second = keepaliveStep(first, "tick", 2);
    const third = keepaliveStep(second, "tick", 2);
    expect([first, second, third].map((s) => s.signal)).toEqual([ping, ping, abandon]);
  });

  it("starts counting again after a pong", () => {
    const twice = keepaliveStep(keepaliveStep(keepaliveStart, "tick", 2), "tick", 2);
    expect(keepaliveStep(twice, "pong", 2)).toEqual(keepaliveStart);
    expect(keepaliveStep(keepaliveStep(twice, "pong", 2), "tick", 2)).toEqual({ unanswered: 1, signal: ping });
  });
});

describe("keepalive", () => {
  it("pings every interval while pongs come back, and never abandons (interval 10 ms, pong 1 ms after each ping)", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const pongs = cold("11ms p 9ms p 9ms p 9ms p");
      expectObservable(keepalive(pongs, { intervalMs: 10, maxMissed: 2 }), "^ 45ms !").toBe("10ms p 9ms p 9ms p 9ms p", { p: ping });
    });
  });

  it("abandons a connection that never answers at the third tick (two missed pongs), then completes", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(keepalive(cold("-"), { intervalMs: 10, maxMissed: 2 })).toBe("10ms p 9ms p 9ms (a|)", { p: ping, a: abandon });
    });
  });

  it("abandons two full intervals after the pongs stop (the last pong at 11 ms, abandoned at 40 ms)", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(keepalive(cold("11ms p"), { intervalMs: 10, maxMissed: 2 })).toBe("10ms p 9ms p 9ms p 9ms (a|)", { p: ping, a: abandon });
    });
  });

  it("stops its timer when unsubscribed (the connection closed)", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const pongs = cold("-");
      expectObservable(keepalive(pongs, { intervalMs: 10, maxMissed: 2 }), "^ 14ms !").toBe("10ms p", { p: ping });
      expectSubscriptions(pongs.subscriptions).toBe("^ 14ms !");
    });
  });

  it("passes an error of the pong source through", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(keepalive(cold("5ms #"), { intervalMs: 10, maxMissed: 2 })).toBe("5ms #");
    });
  });
});
