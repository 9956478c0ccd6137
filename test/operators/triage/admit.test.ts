import { describe, expect, it } from "vitest";
import { admit } from "../../../operators/triage/admit.js";
import { parseQuietHours } from "../../../operators/triage/quietHours.js";
import { DISABLED_TRIAGE, TriageSettingsError } from "../../../operators/triage/triageSettings.js";
import { EMPTY_TRIAGE_STATE } from "../../../operators/triage/triageState.js";
import { cooldownVerdict, dailyCapVerdict, DUPLICATE, QUIET_HOURS, WAKE } from "../../../operators/triage/triageVerdict.js";
import { at, Conversations, enabled, SECOND } from "./conversations.js";

// Each test ports the upstream test of the same name (delivery-and-triage.md §13.7), step for step.
describe("admit: event_triage.rs", () => {
  it("disabled_triage_admits_everything", () => {
    const state = new Conversations();
    for (let i = 0; i < 10; i++) expect(state.admit("c1", `e${i}`, DISABLED_TRIAGE, at("2026-08-25T03:00:00Z"))).toEqual(WAKE);
    // Even a repeat id: with triage off, nothing is tracked at all.
    expect(state.admit("c1", "e0", DISABLED_TRIAGE, at("2026-08-25T03:00:00Z"))).toEqual(WAKE);
    expect(state.tracked).toBe(0);
  });

  it("duplicate_event_id_is_suppressed_within_the_window", () => {
    const state = new Conversations();
    const cfg = enabled({ dedupeWindowSecs: 3600 });
    const t = at("2026-08-25T12:00:00Z");
    expect(state.admit("c1", "evt_1", cfg, t)).toEqual(WAKE);
    expect(state.admit("c1", "evt_1", cfg, t + 30 * SECOND)).toEqual(DUPLICATE);
  });

  it("duplicate_expires_with_the_window", () => {
    const state = new Conversations();
    const cfg = enabled({ dedupeWindowSecs: 60 });
    const t = at("2026-08-25T12:00:00Z");
    state.admit("c1", "evt_1", cfg, t);
    expect(state.admit("c1", "evt_1", cfg, t + 61 * SECOND)).toEqual(WAKE);
  });

  it("a_quiet_hours_suppression_still_registers_the_id", () => {
    // Otherwise a redelivery after the window closes reads as a new event.
    const state = new Conversations();
    const cfg = enabled({ quietHours: parseQuietHours("22:00-08:00"), dedupeWindowSecs: 86_400 });
    expect(state.admit("c1", "evt_1", cfg, at("2026-08-25T23:00:00Z"))).toEqual(QUIET_HOURS);
    expect(state.admit("c1", "evt_1", cfg, at("2026-08-26T09:00:00Z"))).toEqual(DUPLICATE);
  });

  it("an_empty_event_id_is_never_deduped", () => {
    const state = new Conversations();
    const cfg = enabled({ dedupeWindowSecs: 3600 });
    const t = at("2026-08-25T12:00:00Z");
    expect(state.admit("c1", "", cfg, t)).toEqual(WAKE);
    // A second id-less event is judged on its own merits, not collapsed into the first.
    expect(state.admit("c1", "", cfg, t)).toEqual(WAKE);
    expect(state.state("c1")?.seen).toBeUndefined();
  });

  it("quiet_hours_are_evaluated_in_the_configured_timezone", () => {
    const state = new Conversations();
    const cfg = enabled({ quietHours: parseQuietHours("22:00-08:00"), timezone: "Asia/Taipei" });
    // 16:00Z is midnight in Taipei (UTC+8) — quiet.
    expect(state.admit("c1", "e1", cfg, at("2026-08-25T16:00:00Z"))).toEqual(QUIET_HOURS);
    // 04:00Z is noon in Taipei — not quiet.
    expect(state.admit("c1", "e2", cfg, at("2026-08-25T04:00:00Z"))).toEqual(WAKE);
  });

  it("cooldown_blocks_a_second_wake_and_reports_the_remainder", () => {
    const state = new Conversations();
    const cfg = enabled({ cooldownSecs: 900 });
    const t = at("2026-08-25T12:00:00Z");
    expect(state.admit("c1", "e1", cfg, t)).toEqual(WAKE);
    expect(state.admit("c1", "e2", cfg, t + 300 * SECOND)).toEqual(cooldownVerdict(600));
    expect(state.admit("c1", "e3", cfg, t + 900 * SECOND)).toEqual(WAKE);
  });

  it("a_suppressed_event_does_not_restart_the_cooldown", () => {
    const state = new Conversations();
    const cfg = enabled({ cooldownSecs: 600 });
    const t = at("2026-08-25T12:00:00Z");
    state.admit("c1", "e1", cfg, t);
    // Denied at t+300; must not push the next opening out to t+900.
    state.admit("c1", "e2", cfg, t + 300 * SECOND);
    expect(state.admit("c1", "e3", cfg, t + 600 * SECOND)).toEqual(WAKE);
  });

  it("a_backwards_clock_does_not_open_the_cooldown", () => {
    const state = new Conversations();
    const cfg = enabled({ cooldownSecs: 600 });
    const t = at("2026-08-25T12:00:00Z");
    state.admit("c1", "e1", cfg, t);
    // NTP steps the clock back: elapsed is negative, not "ages ago".
    expect(state.admit("c1", "e2", cfg, t - 120 * SECOND)).toMatchObject({ decision: "suppressed", reason: "cooldown" });
  });

  it("cooldown_is_per_conversation", () => {
    const state = new Conversations();
    const cfg = enabled({ cooldownSecs: 900 });
    const t = at("2026-08-25T12:00:00Z");
    expect(state.admit("c1", "e1", cfg, t)).toEqual(WAKE);
    // A busy channel must not exhaust another conversation's allowance.
    expect(state.admit("c2", "e2", cfg, t)).toEqual(WAKE);
  });

  it("daily_cap_stops_at_the_limit_and_resets_next_local_day", () => {
    const state = new Conversations();
    const cfg = enabled({ dailyCap: 2 });
    const t = at("2026-08-25T10:00:00Z");
    expect(state.admit("c1", "e1", cfg, t)).toEqual(WAKE);
    expect(state.admit("c1", "e2", cfg, t + 1 * SECOND)).toEqual(WAKE);
    expect(state.admit("c1", "e3", cfg, t + 2 * SECOND)).toEqual(dailyCapVerdict(2));
    // Next day in the configured zone: allowance is back.
    expect(state.admit("c1", "e4", cfg, at("2026-08-26T10:00:00Z"))).toEqual(WAKE);
  });

  it("daily_cap_rolls_over_on_the_configured_timezone_day", () => {
    const state = new Conversations();
    const cfg = enabled({ dailyCap: 1, timezone: "Asia/Taipei" });
    // 15:00Z = 23:00 Taipei on the 25th.
    expect(state.admit("c1", "e1", cfg, at("2026-08-25T15:00:00Z"))).toEqual(WAKE);
    // 17:00Z = 01:00 Taipei on the 26th — a new local day, though still the 25th in UTC.
    expect(state.admit("c1", "e2", cfg, at("2026-08-25T17:00:00Z"))).toEqual(WAKE);
    expect(state.state("c1")).toMatchObject({ day: "2026-08-26", count: 1 });
  });

  it("zero_means_unlimited_for_both_caps", () => {
    const state = new Conversations();
    const cfg = enabled({ cooldownSecs: 0, dailyCap: 0 });
    const t = at("2026-08-25T12:00:00Z");
    for (let i = 0; i < 20; i++) expect(state.admit("c1", `e${i}`, cfg, t)).toEqual(WAKE);
  });

  it("duplicate_is_reported_ahead_of_quiet_hours", () => {
    // Cheapest and most certain rule wins, so the log names the real cause.
    const state = new Conversations();
    const cfg = enabled({ quietHours: parseQuietHours("22:00-08:00"), dedupeWindowSecs: 7200 });
    state.admit("c1", "e1", cfg, at("2026-08-25T21:30:00Z"));
    expect(state.admit("c1", "e1", cfg, at("2026-08-25T22:30:00Z"))).toEqual(DUPLICATE);
  });
});

describe("admit: rule order and what a suppression costs (§13.4)", () => {
  const t = at("2026-08-25T12:00:00Z");

  it("reports the first failing rule: duplicate, then quiet hours, then cooldown, then the cap", () => {
    const all = enabled({ quietHours: parseQuietHours("13:00-14:00"), dedupeWindowSecs: 86_400, cooldownSecs: 600, dailyCap: 1 });
    const state = new Conversations();
    expect(state.admit("c1", "e1", all, t)).toEqual(WAKE);
    expect(state.admit("c1", "e1", all, t + 3600 * SECOND)).toEqual(DUPLICATE); // also quiet, cooled down, capped
    expect(state.admit("c1", "e2", all, t + 3600 * SECOND)).toEqual(QUIET_HOURS); // also capped
    expect(state.admit("c1", "e3", all, t + 300 * SECOND)).toEqual(cooldownVerdict(300)); // also capped
    expect(state.admit("c1", "e4", all, t + 600 * SECOND)).toEqual(dailyCapVerdict(1));
  });

  it("a suppressed event consumes neither the daily cap nor the cooldown", () => {
    const cfg = enabled({ quietHours: parseQuietHours("20:00-21:00"), cooldownSecs: 600, dailyCap: 2 });
    const state = new Conversations();
    expect(state.admit("c1", "e1", cfg, t)).toEqual(WAKE);
    expect(state.admit("c1", "e2", cfg, t + 100 * SECOND)).toEqual(cooldownVerdict(500));
    expect(state.admit("c1", "e3", cfg, t + 200 * SECOND)).toEqual(cooldownVerdict(400));
    expect(state.admit("c1", "e4", cfg, at("2026-08-25T20:30:00Z"))).toEqual(QUIET_HOURS);
    expect(state.state("c1")).toMatchObject({ lastWakeMs: t, count: 1 });
    expect(state.admit("c1", "e5", cfg, t + 600 * SECOND)).toEqual(WAKE); // 600 s after e1, the only wake
    expect(state.admit("c1", "e6", cfg, t + 1200 * SECOND)).toEqual(dailyCapVerdict(2));
    // The cap suppression did not restart the cooldown either: 700 s after e5, still the cap.
    expect(state.admit("c1", "e7", cfg, t + 1300 * SECOND)).toEqual(dailyCapVerdict(2));
    expect(state.state("c1")).toMatchObject({ lastWakeMs: t + 600 * SECOND, count: 2 });
  });

  it("counts whole seconds of cooldown, truncating the elapsed time", () => {
    const cfg = enabled({ cooldownSecs: 900 });
    const state = new Conversations();
    state.admit("c1", "e1", cfg, t);
    expect(state.admit("c1", "e2", cfg, t + 899_999)).toEqual(cooldownVerdict(1));
    expect(state.admit("c1", "e3", cfg, t + 900_000)).toEqual(WAKE);
  });

  it("a backwards clock counts as zero elapsed: the whole cooldown remains", () => {
    const cfg = enabled({ cooldownSecs: 600 });
    const state = new Conversations();
    state.admit("c1", "e1", cfg, t);
    expect(state.admit("c1", "e2", cfg, t - 120 * SECOND)).toEqual(cooldownVerdict(600));
    expect(state.admit("c1", "e3", cfg, t + 599 * SECOND)).toEqual(cooldownVerdict(1));
  });

  it("a backwards clock keeps earlier ids and still records new ones", () => {
    const cfg = enabled({ dedupeWindowSecs: 3600 });
    const state = new Conversations();
    state.admit("c1", "e1", cfg, t);
    expect(state.admit("c1", "e2", cfg, t - 120 * SECOND)).toEqual(WAKE);
    expect(state.admit("c1", "e1", cfg, t - 60 * SECOND)).toEqual(DUPLICATE);
    expect(state.admit("c1", "e2", cfg, t)).toEqual(DUPLICATE);
  });

  it("an id exactly the window old still counts; one second more and it is gone", () => {
    const cfg = enabled({ dedupeWindowSecs: 60 });
    const exact = new Conversations();
    exact.admit("c1", "evt_1", cfg, t);
    expect(exact.admit("c1", "evt_1", cfg, t + 60 * SECOND)).toEqual(DUPLICATE);
    const later = new Conversations();
    later.admit("c1", "evt_1", cfg, t);
    expect(later.admit("c1", "evt_1", cfg, t + 61 * SECOND)).toEqual(WAKE);
  });

  it("remembers ids to the whole second: at most 999 ms past the window, never less", () => {
    const cfg = enabled({ dedupeWindowSecs: 60 });
    const state = new Conversations();
    state.admit("c1", "evt_1", cfg, t + 500);
    expect(state.admit("c1", "evt_1", cfg, t + 60_999)).toEqual(DUPLICATE);
    const other = new Conversations();
    other.admit("c1", "evt_1", cfg, t + 500);
    expect(other.admit("c1", "evt_1", cfg, t + 61_000)).toEqual(WAKE);
  });

  it("a wake stores the wake time, the local day and the count; disabled returns the state untouched", () => {
    const woke = admit(undefined, "e1", enabled({ timezone: "Asia/Taipei" }), at("2026-08-25T17:00:00Z"));
    expect(woke).toEqual({ verdict: WAKE, state: { lastWakeMs: at("2026-08-25T17:00:00Z"), day: "2026-08-26", count: 1 } });
    const off = admit(woke.state, "e2", DISABLED_TRIAGE, at("2026-08-25T18:00:00Z"));
    expect(off.state).toBe(woke.state);
    expect(admit(undefined, "e2", DISABLED_TRIAGE, 0).state).toBe(EMPTY_TRIAGE_STATE);
  });

  it("prunes ids that left the window from the state it returns", () => {
    const cfg = enabled({ dedupeWindowSecs: 60 });
    let state = admit(undefined, "e1", cfg, t).state;
    state = admit(state, "e2", cfg, t + 10 * SECOND).state;
    const pruned = admit(state, "e3", cfg, t + 200 * SECOND).state;
    expect(pruned.seen).toBe(admit(undefined, "e3", cfg, t + 200 * SECOND).state.seen);
  });

  it("throws TriageSettingsError for a timezone luxon does not know", () => {
    expect(() => admit(undefined, "e1", enabled({ timezone: "Mars/Olympus_Mons" }), t)).toThrow(TriageSettingsError);
  });
});
