import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { REFUSAL_SUMMARY_MS, RefusalLog } from "../../src/metrics/refusalLog.js";
import { captureLogs } from "../helpers/logCapture.js";

// Virtual time (vitest's fake timers): the summary period is asserted exactly.
beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("RefusalLog", () => {
  it("the first refusal of a reason is a line at once; the rest are one summary line per period while they go on", () => {
    const { logger, records } = captureLogs();
    const log = new RefusalLog(logger);
    for (let i = 0; i < 10_000; i++) log.note("connection_limit", { limit: 256 });
    expect(records).toEqual([expect.objectContaining({ level: 40, msg: "metrics client refused", reason: "connection_limit", limit: 256 })]);
    vi.advanceTimersByTime(REFUSAL_SUMMARY_MS - 1);
    expect(records).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(records[1]).toMatchObject({ level: 40, msg: "metrics clients refused", reason: "connection_limit", refused: 9_999, periodMs: REFUSAL_SUMMARY_MS });

    log.note("connection_limit");
    log.note("headers_timeout"); // another reason: a first line of its own
    vi.advanceTimersByTime(REFUSAL_SUMMARY_MS);
    expect(records.slice(2).map((r) => [r.msg, r.reason, r.refused])).toEqual([
      ["metrics client refused", "headers_timeout", undefined],
      ["metrics clients refused", "connection_limit", 1],
    ]);
  });

  it("a period without refusals ends the episode: the next refusal is a first line again, and no timer is left", () => {
    const { logger, records } = captureLogs();
    const log = new RefusalLog(logger);
    log.note("bad_request");
    vi.advanceTimersByTime(REFUSAL_SUMMARY_MS);
    expect(records).toHaveLength(1); // nothing more to say
    expect(vi.getTimerCount()).toBe(0);
    log.note("bad_request");
    expect(records.map((r) => r.msg)).toEqual(["metrics client refused", "metrics client refused"]);
  });

  it("flush writes what was counted and stops the timer", () => {
    const { logger, records } = captureLogs();
    const log = new RefusalLog(logger);
    log.note("stalled_client");
    log.note("stalled_client");
    log.flush();
    expect(records.map((r) => [r.msg, r.refused])).toEqual([
      ["metrics client refused", undefined],
      ["metrics clients refused", 1],
    ]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
