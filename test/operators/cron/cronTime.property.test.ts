import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { parseCronExpression } from "../../../operators/cron/cronExpression.js";
import { firesAt, nextFiring } from "../../../operators/cron/cronTime.js";

const MINUTE = 60_000;
const HOUR = 3_600_000;
const WINDOW = 2 * 24 * HOUR;

/** The first minute in (after, after + window] at which the job fires, found one minute at a time. */
function scan(expression: string, timezone: string, after: number): number | undefined {
  const schedule = parseCronExpression(expression);
  for (let at = Math.floor(after / MINUTE) * MINUTE + MINUTE; at <= after + WINDOW; at += MINUTE) if (firesAt(schedule, timezone, at)) return at;
  return undefined;
}

const item = (min: number, max: number) =>
  fc.oneof(
    fc.constant("*"),
    fc.integer({ min, max }).map(String),
    fc.tuple(fc.integer({ min, max }), fc.integer({ min, max })).map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
    fc.integer({ min: 1, max: Math.min(max, 30) }).map((step) => `*/${step}`),
    fc.tuple(fc.integer({ min, max }), fc.integer({ min: 1, max: Math.min(max, 30) })).map(([start, step]) => `${start}/${step}`),
  );
const field = (min: number, max: number) => fc.array(item(min, max), { minLength: 1, maxLength: 3 }).map((items) => items.join(","));
// Mostly `*` beyond the hour, so that most schedules fire within the window and are compared where it matters.
const rare = (min: number, max: number, names: readonly string[] = []) =>
  fc.oneof({ weight: 4, arbitrary: fc.constant("*") }, { weight: 1, arbitrary: field(min, max) }, { weight: names.length > 0 ? 1 : 0, arbitrary: fc.constantFrom("*", ...names) });

const expression = fc
  .tuple(field(0, 59), field(0, 23), rare(1, 31), rare(1, 12, ["jan-jun", "Mar,Oct,Nov"]), rare(0, 7, ["Mon-Fri", "sun,SAT", "tues"]))
  .map((fields) => fields.join(" "));

// Zones with turns of an hour (both hemispheres), half an hour, none, and odd offsets.
const timezone = fc.constantFrom("Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Australia/Adelaide", "America/St_Johns", "Asia/Kathmandu", "Asia/Taipei", "UTC");

// Starts near the 2026 turns of these zones, and anywhere in the year.
const turns = ["2026-03-08T07:00Z", "2026-03-29T01:00Z", "2026-04-04T15:00Z", "2026-10-03T16:30Z", "2026-10-25T01:00Z", "2026-11-01T06:00Z"].map((iso) => Date.parse(iso));
const after = fc.oneof(
  fc.tuple(fc.constantFrom(...turns), fc.integer({ min: -30 * HOUR, max: 6 * HOUR })).map(([turn, shift]) => turn + shift),
  fc.integer({ min: Date.parse("2026-01-01T00:00Z"), max: Date.parse("2027-01-01T00:00Z") }),
);

describe("nextFiring", () => {
  test.prop([expression, timezone, after], { numRuns: 100 })("is the first minute a minute-by-minute scan of firesAt finds", (text, zone, afterMs) => {
    expect(nextFiring(parseCronExpression(text), zone, afterMs, WINDOW)).toBe(scan(text, zone, afterMs));
  });
});
