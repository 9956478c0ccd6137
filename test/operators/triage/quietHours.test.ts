import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { parseQuietHours, quietHoursContain, QuietHoursError } from "../../../operators/triage/quietHours.js";

const minute = (hhmm: string): number => {
  const [h, m] = hhmm.split(":").map(Number);
  return (h as number) * 60 + (m as number);
};

describe("quiet hours: event_triage.rs", () => {
  it("quiet_hours_parses_a_same_day_window", () => {
    const w = parseQuietHours("09:00-17:30");
    expect(quietHoursContain(w, 8 * 60 + 59)).toBe(false);
    expect(quietHoursContain(w, 9 * 60)).toBe(true);
    expect(quietHoursContain(w, 17 * 60 + 29)).toBe(true);
    expect(quietHoursContain(w, 17 * 60 + 30)).toBe(false); // the end minute is exclusive
  });

  it("quiet_hours_wraps_midnight", () => {
    const w = parseQuietHours("22:00-08:00");
    expect(quietHoursContain(w, 23 * 60)).toBe(true);
    expect(quietHoursContain(w, 0)).toBe(true); // midnight is inside a wrapping window
    expect(quietHoursContain(w, 7 * 60 + 59)).toBe(true);
    expect(quietHoursContain(w, 8 * 60)).toBe(false);
    expect(quietHoursContain(w, 12 * 60)).toBe(false);
  });

  it("quiet_hours_equal_bounds_is_never_quiet", () => {
    // Silencing the agent forever must require `enabled = false`.
    const w = parseQuietHours("00:00-00:00");
    for (const m of [0, 1, 720, 1439]) expect(quietHoursContain(w, m)).toBe(false);
  });

  it("quiet_hours_rejects_malformed_specs", () => {
    for (const bad of ["22:00", "22:00/08:00", "25:00-08:00", "22:60-08:00", "x:y-1:2"]) {
      expect(() => parseQuietHours(bad), bad).toThrow(QuietHoursError);
    }
  });
});

describe("quietHoursContain: the §13.2 table", () => {
  it.each([
    ["09:00-17:30", ["09:00", "17:29"], ["08:59", "17:30"]],
    ["22:00-08:00", ["23:00", "00:00", "07:59"], ["08:00", "12:00"]],
    ["00:00-00:00", [], ["00:00", "00:01", "12:00", "23:59"]],
    ["00:00-23:59", ["00:00", "00:01", "12:00", "23:58"], ["23:59"]],
  ])("%s", (spec, quiet, notQuiet) => {
    const w = parseQuietHours(spec);
    for (const m of quiet) expect(quietHoursContain(w, minute(m)), `${m} quiet`).toBe(true);
    for (const m of notQuiet) expect(quietHoursContain(w, minute(m)), `${m} not quiet`).toBe(false);
  });

  it("is the same parser the config validates with (unpadded parts, spaces around the dash)", () => {
    expect(parseQuietHours("9:5 - 17:30")).toEqual({ startMinute: 545, endMinute: 1050 });
  });
});

describe("quietHoursContain: properties", () => {
  const m = fc.integer({ min: 0, max: 1439 });

  test.prop([m, m, m])("a window and its swapped complement split the day exactly (unless empty)", (start, end, at) => {
    fc.pre(start !== end);
    const window = { startMinute: start, endMinute: end };
    const complement = { startMinute: end, endMinute: start };
    expect(quietHoursContain(window, at)).toBe(!quietHoursContain(complement, at));
  });

  test.prop([m, m])("the start minute is quiet and the end minute is not", (start, end) => {
    fc.pre(start !== end);
    const window = { startMinute: start, endMinute: end };
    expect(quietHoursContain(window, start)).toBe(true);
    expect(quietHoursContain(window, end)).toBe(false);
  });
});
