import { describe, expect, it } from "vitest";
import { parseQuietHours } from "../../../operators/triage/quietHours.js";
import { DISABLED_TRIAGE, type TriageSettings } from "../../../operators/triage/triageSettings.js";
import { cooldownVerdict, dailyCapVerdict, DUPLICATE, QUIET_HOURS, type TriageVerdict, WAKE } from "../../../operators/triage/triageVerdict.js";
import { at, Conversations, enabled, SECOND } from "./conversations.js";

const t = at("2026-08-25T12:00:00Z");
const day = (hhmmss: string, date = "2026-08-25") => at(`${date}T${hhmmss}Z`);

interface Call {
  readonly key?: string;
  readonly id: string;
  readonly at: number;
  /** A verdict, or just the reason when the table gives none of its numbers. */
  readonly expect: TriageVerdict | "cooldown";
}

const call = (id: string, atMs: number, verdict: Call["expect"], key?: string): Call => (key === undefined ? { id, at: atMs, expect: verdict } : { key, id, at: atMs, expect: verdict });
const many = (n: number, atMs: number): Call[] => Array.from({ length: n }, (_, i) => call(`e${i}`, atMs, WAKE));
const quiet = parseQuietHours("22:00-08:00");

// delivery-and-triage.md §13.7, one row per case, in table order (times UTC, key c1 unless stated).
const vectors: [string, TriageSettings, Call[]][] = [
  ["disabled (default): e0…e9 @ 03:00, then e0 again → all Wake", DISABLED_TRIAGE, [...many(10, day("03:00:00")), call("e0", day("03:00:00"), WAKE)]],
  ["dedupe 3600: evt_1 @ 12:00:00, evt_1 @ 12:00:30 → Wake, Duplicate", enabled({ dedupeWindowSecs: 3600 }), [call("evt_1", t, WAKE), call("evt_1", day("12:00:30"), DUPLICATE)]],
  ["dedupe 60: evt_1 @ 12:00:00, evt_1 @ 12:01:01 → Wake, Wake", enabled({ dedupeWindowSecs: 60 }), [call("evt_1", t, WAKE), call("evt_1", day("12:01:01"), WAKE)]],
  [
    "quiet 22:00-08:00, dedupe 86 400: evt_1 @ 08-25 23:00, evt_1 @ 08-26 09:00 → QuietHours, Duplicate",
    enabled({ quietHours: quiet, dedupeWindowSecs: 86_400 }),
    [call("evt_1", day("23:00:00"), QUIET_HOURS), call("evt_1", day("09:00:00", "2026-08-26"), DUPLICATE)],
  ],
  ['dedupe 3600: "" @ 12:00, "" @ 12:00 → Wake, Wake', enabled({ dedupeWindowSecs: 3600 }), [call("", t, WAKE), call("", t, WAKE)]],
  [
    "quiet 22:00-08:00, tz Asia/Taipei: e1 @ 16:00 (00:00 Taipei), e2 @ 04:00 (12:00 Taipei) → QuietHours, Wake",
    enabled({ quietHours: quiet, timezone: "Asia/Taipei" }),
    [call("e1", day("16:00:00"), QUIET_HOURS), call("e2", day("04:00:00"), WAKE)],
  ],
  ["cooldown 900: e1 @ t, e2 @ t+300, e3 @ t+900 → Wake, Cooldown{600}, Wake", enabled({ cooldownSecs: 900 }), [call("e1", t, WAKE), call("e2", t + 300 * SECOND, cooldownVerdict(600)), call("e3", t + 900 * SECOND, WAKE)]],
  ["cooldown 600: e1 @ t, e2 @ t+300, e3 @ t+600 → Wake, Cooldown, Wake", enabled({ cooldownSecs: 600 }), [call("e1", t, WAKE), call("e2", t + 300 * SECOND, "cooldown"), call("e3", t + 600 * SECOND, WAKE)]],
  ["cooldown 600: e1 @ t, e2 @ t−120 → Wake, Cooldown", enabled({ cooldownSecs: 600 }), [call("e1", t, WAKE), call("e2", t - 120 * SECOND, "cooldown")]],
  ["cooldown 900: c1/e1 @ t, c2/e2 @ t → Wake, Wake", enabled({ cooldownSecs: 900 }), [call("e1", t, WAKE, "c1"), call("e2", t, WAKE, "c2")]],
  [
    "cap 2: e1 @ 08-25 10:00:00, e2 +1 s, e3 +2 s, e4 @ 08-26 10:00 → Wake, Wake, DailyCap{2}, Wake",
    enabled({ dailyCap: 2 }),
    [call("e1", day("10:00:00"), WAKE), call("e2", day("10:00:01"), WAKE), call("e3", day("10:00:02"), dailyCapVerdict(2)), call("e4", day("10:00:00", "2026-08-26"), WAKE)],
  ],
  [
    "cap 1, tz Asia/Taipei: e1 @ 08-25 15:00 (23:00 local), e2 @ 08-25 17:00 (01:00 next local day) → Wake, Wake",
    enabled({ dailyCap: 1, timezone: "Asia/Taipei" }),
    [call("e1", day("15:00:00"), WAKE), call("e2", day("17:00:00"), WAKE)],
  ],
  ["cooldown 0, cap 0: e0…e19 @ same instant → all Wake", enabled({ cooldownSecs: 0, dailyCap: 0 }), many(20, t)],
  [
    "quiet 22:00-08:00, dedupe 7200: e1 @ 21:30, e1 @ 22:30 → Wake, Duplicate (not QuietHours)",
    enabled({ quietHours: quiet, dedupeWindowSecs: 7200 }),
    [call("e1", day("21:30:00"), WAKE), call("e1", day("22:30:00"), DUPLICATE)],
  ],
];

describe("admit: the §13.7 vectors, in table order", () => {
  it.each(vectors)("%s", (_, settings, calls) => {
    const state = new Conversations();
    calls.forEach(({ key = "c1", id, at: now, expect: wanted }, index) => {
      const verdict = state.admit(key, id, settings, now);
      if (wanted === "cooldown") expect(verdict, `call ${index + 1}`).toMatchObject({ decision: "suppressed", reason: "cooldown" });
      else expect(verdict, `call ${index + 1}`).toEqual(wanted);
    });
  });

  it("dedupe 3600: old/e1 @ 08-20 12:00, fresh/e2 @ 08-25 12:00; sweep(cutoff 08-24 00:00); fresh/e2 @ 08-25 12:30 → 2 tracked → 1 tracked; then Duplicate", () => {
    const state = new Conversations();
    const cfg = enabled({ dedupeWindowSecs: 3600 });
    state.admit("old", "e1", cfg, at("2026-08-20T12:00:00Z"));
    state.admit("fresh", "e2", cfg, at("2026-08-25T12:00:00Z"));
    expect(state.tracked).toBe(2);
    expect(state.sweep(at("2026-08-24T00:00:00Z"))).toBe(1);
    expect(state.tracked).toBe(1);
    expect(state.admit("fresh", "e2", cfg, at("2026-08-25T12:30:00Z"))).toEqual(DUPLICATE);
  });
});
