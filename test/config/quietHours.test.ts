import { describe, expect, it } from "vitest";
import { parseQuietHours, QuietHoursError, resolveConfig } from "../../src/config/index.js";

describe("parseQuietHours", () => {
  it.each([
    ["22:00-07:00", 1320, 420],
    ["00:00-00:00", 0, 0],
    ["09:00-17:30", 540, 1050],
    ["00:00-23:59", 0, 1439],
    ["9:5 - 17:30", 545, 1050],
  ])("parses %j", (text, startMinute, endMinute) => {
    expect(parseQuietHours(text)).toEqual({ startMinute, endMinute });
  });

  it.each([
    ["25:00-07:00", "hour out of range"],
    ["22:60-07:00", "minute out of range"],
    ["7-9", `"7" is not HH:MM`],
    ["07:00", `no "-"`],
    ["x:y-1:2", `"x:y" is not HH:MM`],
    ["22:00/08:00", `no "-"`],
    ["", `no "-"`],
  ])("rejects %j (%s)", (text, reason) => {
    expect(() => parseQuietHours(text)).toThrow(QuietHoursError);
    try {
      parseQuietHours(text);
    } catch (error) {
      expect((error as QuietHoursError).reason).toContain(reason);
      expect((error as QuietHoursError).message).toContain(`${JSON.stringify(text)} is not allowed; expected "HH:MM-HH:MM" with 24-hour times`);
    }
  });

  it("keeps a valid value as the raw string in the config", () => {
    expect(resolveConfig({ triage: { quiet_hours: "22:00-07:00" } }, { env: {} }).triage.quiet_hours).toBe("22:00-07:00");
    expect(resolveConfig({ triage: { quiet_hours: "00:00-00:00" } }, { env: {} }).triage.quiet_hours).toBe("00:00-00:00");
    expect(resolveConfig({}, { env: {} }).triage.quiet_hours).toBeUndefined();
  });
});
