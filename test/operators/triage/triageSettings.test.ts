import { describe, expect, it } from "vitest";
import { QuietHoursError } from "../../../operators/triage/quietHours.js";
import { DISABLED_TRIAGE, settingsFromConfig, TriageSettingsError } from "../../../operators/triage/triageSettings.js";
import { resolveConfig } from "../../../src/config/index.js";

const triageConfig = (triage: Record<string, unknown>) => resolveConfig({ triage }, { env: {} }).triage;

describe("settingsFromConfig", () => {
  it("resolves the config's defaults: off, UTC, cooldown 900, cap 8, dedupe 3600, no quiet hours", () => {
    expect(settingsFromConfig(triageConfig({}))).toEqual({
      enabled: false,
      quietHours: undefined,
      timezone: "UTC",
      cooldownSecs: 900,
      dailyCap: 8,
      dedupeWindowSecs: 3600,
    });
  });

  it("parses the quiet window once and keeps every other key", () => {
    const settings = settingsFromConfig(
      triageConfig({ enabled: true, quiet_hours: "22:00-08:00", timezone: "Europe/Berlin", cooldown_secs: 0, daily_cap: 3, dedupe_window_secs: 60 }),
    );
    expect(settings).toEqual({
      enabled: true,
      quietHours: { startMinute: 1320, endMinute: 480 },
      timezone: "Europe/Berlin",
      cooldownSecs: 0,
      dailyCap: 3,
      dedupeWindowSecs: 60,
    });
  });

  it("fails like upstream's resolve(): triage.quiet_hours: <error>, with the parser's error as cause", () => {
    const config = { ...triageConfig({}), quiet_hours: "25:00-08:00" };
    expect(() => settingsFromConfig(config)).toThrow(TriageSettingsError);
    try {
      settingsFromConfig(config);
    } catch (error) {
      expect(error).toMatchObject({ key: "quiet_hours" });
      expect((error as Error).message).toMatch(/^triage\.quiet_hours: "25:00-08:00" is not allowed/);
      expect((error as Error).cause).toBeInstanceOf(QuietHoursError);
    }
  });

  it("fails like upstream's resolve(): triage.timezone: invalid timezone …", () => {
    const config = { ...triageConfig({}), timezone: "Mars/Olympus_Mons" };
    expect(() => settingsFromConfig(config)).toThrow(new TriageSettingsError("timezone", 'invalid timezone "Mars/Olympus_Mons"'));
    expect(() => settingsFromConfig(config)).toThrow('triage.timezone: invalid timezone "Mars/Olympus_Mons"');
  });

  it("DISABLED_TRIAGE is upstream's TriageSettings::default(): off, UTC, every limit 0", () => {
    expect(DISABLED_TRIAGE).toEqual({ enabled: false, timezone: "UTC", cooldownSecs: 0, dailyCap: 0, dedupeWindowSecs: 0 });
  });
});
