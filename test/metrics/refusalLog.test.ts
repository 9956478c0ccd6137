import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { REFUSAL_SUMMARY_MS, RefusalLog } from "../../src/metrics/refusalLog.js";
import { captureLogs } from "../helpers/logCapture.js";

// Virtual time (vitest's fake timers): the summary period is asserted exactly.
beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("RefusalLog", () => {
  it("tallies each reason apart: a first line per reason at once, then one count line per reason and period", () => {
    const { logger, records } = captureLogs();
    const log = new RefusalLog(logger);
    for (let i = 0; i < 10_000; i++) log.note("connection_limit", { limit: 256 });
    log.note("headers_timeout");
    expect(records.map((r) => [r.msg, r.reason, r.count, r.limit])).toEqual([
      ["metrics client refused", "connection_limit", 1, 256],
      ["metrics client refused", "headers_timeout", 1, undefined],
    ]);
    vi.advanceTimersByTime(REFUSAL_SUMMARY_MS);
    expect(records.slice(2).map((r) => [r.msg, r.reason, r.count])).toEqual([["metrics client refused", "connection_limit", 9_999]]);
  });

  it("flush writes what every reason still counts", () => {
    const { logger, records } = captureLogs();
    const log = new RefusalLog(logger);
    log.note("stalled_client");
    log.note("stalled_client");
    log.note("bad_request", { bad: "request_line" });
    log.note("bad_request", { bad: "request_line" });
    log.flush();
    expect(records.slice(2).map((r) => [r.reason, r.count])).toEqual([
      ["stalled_client", 1],
      ["bad_request", 1],
    ]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
