import { IANAZone } from "luxon";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseCronExpression } from "../../../operators/cron/cronExpression.js";
import { CronTimezoneError, firesAt, isCronTimezone, NEXT_FIRING_HORIZON_MS, nextFiring } from "../../../operators/cron/cronTime.js";

const ms = (iso: string) => Date.parse(iso);
const iso = (at: number | undefined) => (at === undefined ? undefined : new Date(at).toISOString());
const MINUTE = 60_000;
const DAY = 86_400_000;

/** The UTC minutes in [from, to) at which `expression` fires in `timezone`, one by one. */
function firingsBetween(expression: string, timezone: string, from: string, to: string): string[] {
  const schedule = parseCronExpression(expression);
  const firings: string[] = [];
  for (let at = ms(from); at < ms(to); at += MINUTE) if (firesAt(schedule, timezone, at)) firings.push(iso(at) as string);
  return firings;
}

const next = (expression: string, timezone: string, after: string, horizonMs?: number) =>
  iso(nextFiring(parseCronExpression(expression), timezone, ms(after), horizonMs));

afterEach(() => {
  vi.restoreAllMocks();
});

describe("isCronTimezone: IANA names as chrono-tz parses them (reference §6.1)", () => {
  it.each(["Asia/Taipei", "UTC", "Europe/Berlin", "America/New_York", "US/Eastern", "Etc/GMT+5", "EST5EDT", "Europe/Kyiv", "Europe/Kiev", "America/Argentina/Buenos_Aires", "Zulu"])(
    "knows %j",
    (name) => {
      expect(isCronTimezone(name)).toBe(true);
    },
  );

  it.each(["Mars/Olympus", "", "europe/berlin", "UTC ", "utc", "US/eastern", "Factory", "localtime", "+01:00", "UTC+1", "GMT+1", "Europe/Berlin/"])(
    "refuses %j (exact names only, as chrono-tz without its case-insensitive feature)",
    (name) => {
      expect(isCronTimezone(name)).toBe(false);
    },
  );
});

describe("firesAt: upstream's should_fire vectors", () => {
  const weekdays = parseCronExpression("0 7 * * 1-5");

  it("`* * * * *` fires every minute, in UTC and in Asia/Taipei", () => {
    const everyMinute = parseCronExpression("* * * * *");
    expect(firesAt(everyMinute, "UTC", ms("2026-05-10T12:34:00Z"))).toBe(true);
    expect(firesAt(everyMinute, "Asia/Taipei", ms("2026-05-10T12:34:00Z"))).toBe(true);
  });

  it("`0 7 * * 1-5` in Asia/Taipei: not on Sunday 07:00 (v0.8.3's bug, issue #784), but on Monday", () => {
    expect(firesAt(weekdays, "Asia/Taipei", ms("2026-05-09T23:00:00Z"))).toBe(false);
    expect(firesAt(weekdays, "Asia/Taipei", ms("2026-05-10T23:00:00Z"))).toBe(true);
  });

  it("`0 7 * * 1-5` in Asia/Taipei: on Friday, not on Saturday", () => {
    expect(firesAt(weekdays, "Asia/Taipei", ms("2026-05-14T23:00:00Z"))).toBe(true);
    expect(firesAt(weekdays, "Asia/Taipei", ms("2026-05-15T23:00:00Z"))).toBe(false);
  });

  it("Sunday is 0 and 7, Saturday 6", () => {
    const sunday0700 = ms("2026-05-09T23:00:00Z");
    expect(firesAt(parseCronExpression("0 7 * * 0"), "Asia/Taipei", sunday0700)).toBe(true);
    expect(firesAt(parseCronExpression("0 7 * * 7"), "Asia/Taipei", sunday0700)).toBe(true);
    expect(firesAt(parseCronExpression("0 7 * * 6"), "Asia/Taipei", ms("2026-05-15T23:00:00Z"))).toBe(true);
  });

  it("names: `0 7 * * Mon-Fri` fires on Monday, not on Sunday", () => {
    const named = parseCronExpression("0 7 * * Mon-Fri");
    expect(firesAt(named, "Asia/Taipei", ms("2026-05-10T23:00:00Z"))).toBe(true);
    expect(firesAt(named, "Asia/Taipei", ms("2026-05-09T23:00:00Z"))).toBe(false);
  });

  it("matches the local minute only: the minute before and after do not fire", () => {
    expect(firesAt(weekdays, "Asia/Taipei", ms("2026-05-10T22:59:00Z"))).toBe(false);
    expect(firesAt(weekdays, "Asia/Taipei", ms("2026-05-10T23:01:00Z"))).toBe(false);
  });

  it("an unknown timezone is a CronTimezoneError, whose message does not echo the name", () => {
    const call = () => firesAt(weekdays, "Mars/Olympus", 0);
    expect(call).toThrow(CronTimezoneError);
    try {
      call();
    } catch (error) {
      expect(error).toMatchObject({ name: "CronTimezoneError", timezone: "Mars/Olympus" });
      expect((error as Error).message).not.toContain("Mars");
    }
    expect(() => nextFiring(weekdays, "europe/berlin", 0)).toThrow(CronTimezoneError);
  });
});

describe("nextFiring: reference §6.1", () => {
  it("`0 9 * * 1-5` after Saturday 2026-05-09T12:00Z is Monday 2026-05-11T09:00Z (v0.8.3 said Sunday)", () => {
    expect(next("0 9 * * 1-5", "UTC", "2026-05-09T12:00:00Z")).toBe("2026-05-11T09:00:00.000Z");
  });

  it("`0 9 1 * 1` after 2026-01-15 is 2026-06-01T09:00Z: the 1st that is a Monday (AND)", () => {
    expect(next("0 9 1 * 1", "UTC", "2026-01-15T00:00:00Z")).toBe("2026-06-01T09:00:00.000Z");
  });

  it("`30 2 * * *` in America/New_York after 2026-03-07T07:30Z is 2026-03-09T06:30Z: 02:30 on March 8 does not exist", () => {
    expect(next("30 2 * * *", "America/New_York", "2026-03-07T07:30:00Z")).toBe("2026-03-09T06:30:00.000Z");
    expect(firingsBetween("30 2 * * *", "America/New_York", "2026-03-08T00:00:00Z", "2026-03-09T00:00:00Z")).toEqual([]);
  });

  it("is strictly after: a firing at `afterMs` itself is not the next one; a time within a minute rounds up", () => {
    expect(next("0 9 * * *", "UTC", "2026-05-11T09:00:00Z")).toBe("2026-05-12T09:00:00.000Z");
    expect(next("0 9 * * *", "UTC", "2026-05-11T08:59:30Z")).toBe("2026-05-11T09:00:00.000Z");
    expect(next("* * * * *", "UTC", "2026-05-11T08:59:59.999Z")).toBe("2026-05-11T09:00:00.000Z");
  });

  it("searches a year and a bit by default, or the horizon it is given; undefined past it", () => {
    expect(NEXT_FIRING_HORIZON_MS).toBe(368 * DAY);
    expect(next("0 0 29 2 *", "UTC", "2026-03-01T00:00:00Z")).toBeUndefined();
    expect(next("0 0 29 2 *", "UTC", "2026-03-01T00:00:00Z", 3 * 366 * DAY)).toBe("2028-02-29T00:00:00.000Z");
    expect(next("0 0 31 2 *", "Europe/Berlin", "2026-03-01T00:00:00Z")).toBeUndefined();
    expect(next("0 12 * * *", "UTC", "2026-03-01T00:00:00Z", 12 * 3_600_000)).toBe("2026-03-01T12:00:00.000Z");
    expect(next("0 12 * * *", "UTC", "2026-03-01T00:00:00Z", 12 * 3_600_000 - 1)).toBeUndefined();
  });

  it("asks the zone's offset a few times a day, never minute by minute", () => {
    const offset = vi.spyOn(IANAZone.prototype, "offset");
    expect(next("0 0 31 2 *", "Europe/Berlin", "2026-03-01T00:00:00Z")).toBeUndefined();
    expect(offset.mock.calls.length).toBeLessThan(3 * 368);
    offset.mockClear();
    expect(next("59 23 29 2 5", "America/New_York", "2026-03-01T00:00:00Z", 40 * 366 * DAY)).toBe("2036-03-01T04:59:00.000Z");
    expect(offset.mock.calls.length).toBeLessThan(3 * 40 * 366);
  });
});

describe("DST: a skipped local time never fires, a repeated one fires once, at its first showing", () => {
  it("America/New_York on 2026-11-01: the ticks in the repeated hour do not throw, and 01:30 fires once, at 05:30Z", () => {
    expect(firingsBetween("30 1 * * *", "America/New_York", "2026-11-01T04:00:00Z", "2026-11-01T08:00:00Z")).toEqual(["2026-11-01T05:30:00.000Z"]);
    const everyMinute = firingsBetween("* * * * *", "America/New_York", "2026-11-01T05:00:00Z", "2026-11-01T07:00:00Z");
    expect(everyMinute).toHaveLength(60);
    expect(everyMinute[0]).toBe("2026-11-01T05:00:00.000Z");
    expect(everyMinute.at(-1)).toBe("2026-11-01T05:59:00.000Z");
    expect(next("30 1 * * *", "America/New_York", "2026-11-01T05:30:00Z")).toBe("2026-11-02T06:30:00.000Z");
  });

  it("Europe/Berlin 2026-03-29 (02:00 → 03:00): `30 2 * * *` does not fire that day", () => {
    expect(firingsBetween("30 2 * * *", "Europe/Berlin", "2026-03-28T00:00:00Z", "2026-03-31T00:00:00Z")).toEqual([
      "2026-03-28T01:30:00.000Z",
      "2026-03-30T00:30:00.000Z",
    ]);
    expect(next("30 2 * * *", "Europe/Berlin", "2026-03-28T01:30:00Z")).toBe("2026-03-30T00:30:00.000Z");
  });

  it("Europe/Berlin 2026-10-25 (03:00 → 02:00): `30 2 * * *` fires once, at 00:30Z, not again at 01:30Z", () => {
    expect(firingsBetween("30 2 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z", "2026-10-26T12:00:00Z")).toEqual([
      "2026-10-25T00:30:00.000Z",
      "2026-10-26T01:30:00.000Z",
    ]);
    expect(next("30 2 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z")).toBe("2026-10-25T00:30:00.000Z");
    expect(next("30 2 * * *", "Europe/Berlin", "2026-10-25T00:30:00Z")).toBe("2026-10-26T01:30:00.000Z");
  });

  it("Europe/Berlin 2026-10-25: `*/15 * * * *` fires 4 times in the repeated hour, not 8", () => {
    expect(firingsBetween("*/15 * * * *", "Europe/Berlin", "2026-10-25T00:00:00Z", "2026-10-25T02:00:00Z")).toEqual([
      "2026-10-25T00:00:00.000Z",
      "2026-10-25T00:15:00.000Z",
      "2026-10-25T00:30:00.000Z",
      "2026-10-25T00:45:00.000Z",
    ]);
    expect(next("*/15 * * * *", "Europe/Berlin", "2026-10-25T00:45:00Z")).toBe("2026-10-25T02:00:00.000Z");
  });

  it("a schedule whose next local time falls in the gap goes on at the first time after it", () => {
    expect(next("*/5 * * * *", "America/New_York", "2026-03-08T06:55:00Z")).toBe("2026-03-08T07:00:00.000Z");
    expect(next("*/5 2,3 * * *", "America/New_York", "2026-03-08T06:00:00Z")).toBe("2026-03-08T07:00:00.000Z");
  });

  it("half-hour turns (Australia/Lord_Howe, 2026-04-05 02:00 → 01:30): 01:45 fires at its first showing only", () => {
    expect(firingsBetween("45 1 * * *", "Australia/Lord_Howe", "2026-04-04T14:00:00Z", "2026-04-04T16:00:00Z")).toEqual(["2026-04-04T14:45:00.000Z"]);
    expect(next("45 1 * * *", "Australia/Lord_Howe", "2026-04-04T14:45:00Z")).toBe("2026-04-05T15:15:00.000Z");
  });

  it("zones without DST are unaffected, whatever their offset (Asia/Kathmandu, +05:45)", () => {
    expect(next("0 9 * * *", "Asia/Kathmandu", "2026-05-11T00:00:00Z")).toBe("2026-05-11T03:15:00.000Z");
  });
});
