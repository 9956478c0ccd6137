import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RefusalTally } from "../../src/log/refusalTally.js";
import { captureLogs } from "../helpers/logCapture.js";

// Virtual time (vitest's fake timers): the window is asserted exactly.
beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("RefusalTally", () => {
  it("logs the first refusal at once and sums the rest of each window into one line", () => {
    const { logger, records } = captureLogs();
    const tally = new RefusalTally(logger, { msg: "refused", reason: "mcp_unauthorized", fields: { endpoint: "http" }, windowMs: 1_000 });
    for (let i = 0; i < 1_000; i++) tally.count();
    expect(records.map((r) => r.count)).toEqual([1]);
    vi.advanceTimersByTime(999);
    expect(records).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(records.map((r) => r.count)).toEqual([1, 999]);
    tally.count();
    tally.count();
    vi.advanceTimersByTime(1_000);
    expect(records.map((r) => r.count)).toEqual([1, 999, 2]);
    expect(records.every((r) => r.msg === "refused" && r.reason === "mcp_unauthorized" && r.endpoint === "http" && r.level === 40)).toBe(true);
  });

  it("a quiet window ends the episode: the next refusal is logged at once again, and no timer is left", () => {
    const { logger, records } = captureLogs();
    const tally = new RefusalTally(logger, { msg: "refused", reason: "bad_request", windowMs: 1_000 });
    tally.count();
    vi.advanceTimersByTime(1_000);
    expect(vi.getTimerCount()).toBe(0);
    tally.count();
    expect(records.map((r) => r.count)).toEqual([1, 1]);
  });

  it("a refusal's own fields are on the episode's first line only; the sums carry the stable ones", () => {
    const { logger, records } = captureLogs();
    const tally = new RefusalTally(logger, { msg: "refused", reason: "bad_request", fields: { limit: 8 }, windowMs: 1_000 });
    tally.count({ bad: "request_line" });
    tally.count({ bad: "header_line" });
    vi.advanceTimersByTime(1_000);
    expect(records.map(({ bad, limit, count }) => ({ bad, limit, count }))).toEqual([
      { bad: "request_line", limit: 8, count: 1 },
      { bad: undefined, limit: 8, count: 1 },
    ]);
  });

  it("flush writes what was counted and stops the timer", () => {
    const { logger, records } = captureLogs();
    const tally = new RefusalTally(logger, { msg: "refused", reason: "stalled_client" });
    tally.count();
    tally.count();
    tally.count();
    tally.flush();
    expect(records.map((r) => r.count)).toEqual([1, 2]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
