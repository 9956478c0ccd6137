import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { localMinuteOf } from "../../../operators/cron/localMinute.js";

/** The same fields from Date's UTC getters, which read a wall time given as if it were UTC. */
function fromDate(wallMs: number) {
  const date = new Date(wallMs);
  return { minute: date.getUTCMinutes(), hour: date.getUTCHours(), day: date.getUTCDate(), month: date.getUTCMonth() + 1, weekday: date.getUTCDay() };
}

describe("localMinuteOf", () => {
  it("reads a wall time's minute, hour, day, month and weekday", () => {
    expect(localMinuteOf(Date.UTC(2026, 4, 10, 7, 0, 0))).toEqual({ minute: 0, hour: 7, day: 10, month: 5, weekday: 0 });
    expect(localMinuteOf(Date.UTC(2028, 1, 29, 23, 59, 59, 999))).toEqual({ minute: 59, hour: 23, day: 29, month: 2, weekday: 2 });
    expect(localMinuteOf(0)).toEqual({ minute: 0, hour: 0, day: 1, month: 1, weekday: 4 });
    expect(localMinuteOf(-1)).toEqual({ minute: 59, hour: 23, day: 31, month: 12, weekday: 3 });
  });

  test.prop([fc.integer({ min: -8_640_000_000_000, max: 8_640_000_000_000 })], { numRuns: 5000 })("agrees with Date's UTC fields", (wallMs) => {
    expect(localMinuteOf(wallMs)).toEqual(fromDate(wallMs));
  });
});
