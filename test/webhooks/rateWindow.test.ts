import { describe, expect, it } from "vitest";
import { RateWindow } from "../../src/webhooks/rateWindow.js";

describe("RateWindow", () => {
  it("lets perMinute through in any 60 s, then says when the oldest leaves the window", () => {
    let now = 0;
    const window = new RateWindow(3, () => now);
    expect([window.take(), window.take()]).toEqual([{ ok: true }, { ok: true }]);
    now = 30_000;
    expect(window.take()).toEqual({ ok: true });
    expect(window.take()).toEqual({ ok: false, retryAfterSecs: 30 });
    now = 59_999;
    expect(window.take()).toEqual({ ok: false, retryAfterSecs: 1 });
    // The first two leave at 60 s: room for two, then the third's turn is at 90 s.
    now = 60_000;
    expect([window.take(), window.take(), window.take()]).toEqual([{ ok: true }, { ok: true }, { ok: false, retryAfterSecs: 30 }]);
    now = 90_000;
    expect(window.take()).toEqual({ ok: true });
  });

  it("a refusal takes no room: a sender that keeps trying is let through as soon as the window has room", () => {
    let now = 0;
    const window = new RateWindow(1, () => now);
    expect(window.take().ok).toBe(true);
    for (let i = 0; i < 100; i++) {
      now += 500;
      expect(window.take().ok).toBe(now >= 60_000);
    }
  });

  it("rounds Retry-After up to whole seconds, at least 1", () => {
    let now = 0;
    const window = new RateWindow(1, () => now);
    window.take();
    now = 58_500;
    expect(window.take()).toEqual({ ok: false, retryAfterSecs: 2 });
    now = 59_999.5;
    expect(window.take()).toEqual({ ok: false, retryAfterSecs: 1 });
  });

  it("refuses a rate that is not a positive integer", () => {
    expect(() => new RateWindow(0, () => 0)).toThrow(RangeError);
    expect(() => new RateWindow(1.5, () => 0)).toThrow(RangeError);
  });
});
