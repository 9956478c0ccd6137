import { describe, expect, it } from "vitest";
import { cooldownVerdict, dailyCapVerdict, DUPLICATE, QUIET_HOURS, WAKE } from "../../../operators/triage/triageVerdict.js";

describe("SuppressReason: event_triage.rs", () => {
  it("suppress_reasons_have_stable_tags", () => {
    expect(DUPLICATE.reason).toBe("duplicate");
    expect(QUIET_HOURS.reason).toBe("quiet_hours");
    expect(cooldownVerdict(5).reason).toBe("cooldown");
    expect(dailyCapVerdict(3).reason).toBe("daily_cap");
  });
});

describe("TriageVerdict", () => {
  it("displays each reason as upstream's Display does", () => {
    expect(DUPLICATE.detail).toBe("duplicate event");
    expect(QUIET_HOURS.detail).toBe("inside quiet hours");
    expect(cooldownVerdict(600)).toEqual({ decision: "suppressed", reason: "cooldown", remainingSecs: 600, detail: "cooldown (600s remaining)" });
    expect(dailyCapVerdict(8)).toEqual({ decision: "suppressed", reason: "daily_cap", cap: 8, detail: "daily cap of 8 reached" });
    expect(WAKE).toEqual({ decision: "wake" });
  });

  it("the shared verdicts cannot be changed by a caller", () => {
    expect(Object.isFrozen(WAKE) && Object.isFrozen(DUPLICATE) && Object.isFrozen(QUIET_HOURS)).toBe(true);
  });
});
