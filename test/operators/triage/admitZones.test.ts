import { describe, expect, it } from "vitest";
import { admit } from "../../../operators/triage/admit.js";
import { parseQuietHours } from "../../../operators/triage/quietHours.js";
import { dailyCapVerdict, QUIET_HOURS, WAKE } from "../../../operators/triage/triageVerdict.js";
import { at, Conversations, enabled } from "./conversations.js";

/** The verdict for a lone event at `iso` (no history), so only quiet hours can suppress it. */
const quietAt = (window: string, timezone: string) => (iso: string) => admit(undefined, "e", enabled({ quietHours: parseQuietHours(window), timezone }), at(iso)).verdict;

describe("admit: quiet hours follow local wall time across DST changes", () => {
  it("America/New_York, spring forward (2026-03-08 02:00 EST → 03:00 EDT): 01:00-03:00 is quiet for one real hour", () => {
    const verdict = quietAt("01:00-03:00", "America/New_York");
    expect(verdict("2026-03-08T05:59:00Z")).toEqual(WAKE); // 00:59 EST
    expect(verdict("2026-03-08T06:00:00Z")).toEqual(QUIET_HOURS); // 01:00 EST
    expect(verdict("2026-03-08T06:59:00Z")).toEqual(QUIET_HOURS); // 01:59 EST
    expect(verdict("2026-03-08T07:00:00Z")).toEqual(WAKE); // 03:00 EDT, the next instant
    // The day before, the same window is two real hours long.
    expect(verdict("2026-03-07T07:59:00Z")).toEqual(QUIET_HOURS); // 02:59 EST
  });

  it("America/New_York, spring forward: a window inside the skipped hour is never quiet that day", () => {
    const verdict = quietAt("02:00-02:30", "America/New_York");
    expect(verdict("2026-03-08T06:59:00Z")).toEqual(WAKE); // 01:59 EST
    expect(verdict("2026-03-08T07:00:00Z")).toEqual(WAKE); // 03:00 EDT
    expect(verdict("2026-03-09T06:15:00Z")).toEqual(QUIET_HOURS); // 02:15 EDT the next day
  });

  it("America/New_York, fall back (2026-11-01 02:00 EDT → 01:00 EST): 01:00-02:00 is quiet for two real hours", () => {
    const verdict = quietAt("01:00-02:00", "America/New_York");
    expect(verdict("2026-11-01T04:59:00Z")).toEqual(WAKE); // 00:59 EDT
    expect(verdict("2026-11-01T05:00:00Z")).toEqual(QUIET_HOURS); // 01:00 EDT
    expect(verdict("2026-11-01T05:59:00Z")).toEqual(QUIET_HOURS); // 01:59 EDT
    expect(verdict("2026-11-01T06:00:00Z")).toEqual(QUIET_HOURS); // 01:00 EST, the hour again
    expect(verdict("2026-11-01T06:59:00Z")).toEqual(QUIET_HOURS); // 01:59 EST
    expect(verdict("2026-11-01T07:00:00Z")).toEqual(WAKE); // 02:00 EST
  });

  it("Europe/Berlin, a window wrapping midnight across spring forward (2026-03-29) ends at 08:00 local on both sides", () => {
    const verdict = quietAt("22:00-08:00", "Europe/Berlin");
    expect(verdict("2026-03-28T06:59:00Z")).toEqual(QUIET_HOURS); // 07:59 CET
    expect(verdict("2026-03-28T07:00:00Z")).toEqual(WAKE); // 08:00 CET
    expect(verdict("2026-03-28T21:00:00Z")).toEqual(QUIET_HOURS); // 22:00 CET
    expect(verdict("2026-03-29T01:30:00Z")).toEqual(QUIET_HOURS); // 03:30 CEST, just after the jump
    expect(verdict("2026-03-29T05:59:00Z")).toEqual(QUIET_HOURS); // 07:59 CEST
    expect(verdict("2026-03-29T06:00:00Z")).toEqual(WAKE); // 08:00 CEST
    expect(verdict("2026-03-29T19:59:00Z")).toEqual(WAKE); // 21:59 CEST
    expect(verdict("2026-03-29T20:00:00Z")).toEqual(QUIET_HOURS); // 22:00 CEST
  });

  it("Europe/Berlin, fall back (2026-10-25 03:00 CEST → 02:00 CET): the wrapping window ends at 08:00 CET", () => {
    const verdict = quietAt("22:00-08:00", "Europe/Berlin");
    expect(verdict("2026-10-25T00:30:00Z")).toEqual(QUIET_HOURS); // 02:30 CEST
    expect(verdict("2026-10-25T01:30:00Z")).toEqual(QUIET_HOURS); // 02:30 CET, the hour again
    expect(verdict("2026-10-25T06:59:00Z")).toEqual(QUIET_HOURS); // 07:59 CET
    expect(verdict("2026-10-25T07:00:00Z")).toEqual(WAKE); // 08:00 CET
  });
});

describe("admit: the daily count rolls over at local midnight", () => {
  it("Europe/Berlin (UTC+2 in summer): the new day starts at 22:00Z", () => {
    const state = new Conversations();
    const cfg = enabled({ dailyCap: 1, timezone: "Europe/Berlin" });
    expect(state.admit("c1", "e1", cfg, at("2026-08-25T10:00:00Z"))).toEqual(WAKE);
    expect(state.admit("c1", "e2", cfg, at("2026-08-25T21:59:59Z"))).toEqual(dailyCapVerdict(1)); // 23:59:59 local
    expect(state.admit("c1", "e3", cfg, at("2026-08-25T22:00:00Z"))).toEqual(WAKE); // 00:00 on the 26th
    expect(state.state("c1")).toMatchObject({ day: "2026-08-26", count: 1 });
    expect(state.admit("c1", "e4", cfg, at("2026-08-25T22:00:01Z"))).toEqual(dailyCapVerdict(1));
  });

  it("America/New_York (behind UTC): the UTC date changes first, the local day later", () => {
    const state = new Conversations();
    const cfg = enabled({ dailyCap: 1, timezone: "America/New_York" });
    expect(state.admit("c1", "e1", cfg, at("2026-08-25T01:00:00Z"))).toEqual(WAKE); // 21:00 EDT on the 24th
    expect(state.admit("c1", "e2", cfg, at("2026-08-25T03:59:59Z"))).toEqual(dailyCapVerdict(1)); // 23:59:59 on the 24th
    expect(state.admit("c1", "e3", cfg, at("2026-08-25T04:00:00Z"))).toEqual(WAKE); // 00:00 on the 25th
  });

  it("America/New_York, the 25-hour fall-back day is one day for the cap", () => {
    const state = new Conversations();
    const cfg = enabled({ dailyCap: 1, timezone: "America/New_York" });
    expect(state.admit("c1", "e1", cfg, at("2026-11-01T04:00:00Z"))).toEqual(WAKE); // 00:00 EDT, Nov 1
    expect(state.admit("c1", "e2", cfg, at("2026-11-02T04:30:00Z"))).toEqual(dailyCapVerdict(1)); // 23:30 EST, still Nov 1
    expect(state.admit("c1", "e3", cfg, at("2026-11-02T05:00:00Z"))).toEqual(WAKE); // 00:00 EST, Nov 2
  });

  it("Europe/Berlin, the 23-hour spring-forward day rolls over at 22:00Z", () => {
    const state = new Conversations();
    const cfg = enabled({ dailyCap: 1, timezone: "Europe/Berlin" });
    expect(state.admit("c1", "e1", cfg, at("2026-03-28T23:00:00Z"))).toEqual(WAKE); // 00:00 CET, Mar 29
    expect(state.admit("c1", "e2", cfg, at("2026-03-29T21:59:59Z"))).toEqual(dailyCapVerdict(1)); // 23:59:59 CEST
    expect(state.admit("c1", "e3", cfg, at("2026-03-29T22:00:00Z"))).toEqual(WAKE); // 00:00 CEST, Mar 30
  });
});
