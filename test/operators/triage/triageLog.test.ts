import { describe, expect, it } from "vitest";
import { idHash } from "../../../operators/triage/idHash.js";
import { triageLogFields, triageLogLine } from "../../../operators/triage/triageLog.js";
import { cooldownVerdict, dailyCapVerdict, DUPLICATE, QUIET_HOURS, WAKE } from "../../../operators/triage/triageVerdict.js";
import { gatewayEvent } from "../../helpers/events.js";

const event = gatewayEvent({ event_id: "evt-1a2b", platform: "telegram", channel: { id: "test-channel", type: "dm" }, proactive: true });

describe("triage log lines (§13.5)", () => {
  it("a wake: decision, platform, event_id, channel", () => {
    expect(triageLogFields(event, WAKE)).toEqual({ decision: "wake", platform: "telegram", event_id: "evt-1a2b", channel: "test-channel" });
  });

  it.each([
    [DUPLICATE, "duplicate", "duplicate event"],
    [QUIET_HOURS, "quiet_hours", "inside quiet hours"],
    [cooldownVerdict(600), "cooldown", "cooldown (600s remaining)"],
    [dailyCapVerdict(8), "daily_cap", "daily cap of 8 reached"],
  ])("a suppression: decision, reason %#, platform, event_id, channel, detail — in that order", (verdict, reason, detail) => {
    const fields = triageLogFields(event, verdict);
    expect(fields).toEqual({ decision: "suppressed", reason, platform: "telegram", event_id: "evt-1a2b", channel: "test-channel", detail });
    expect(Object.keys(fields)).toEqual(["decision", "reason", "platform", "event_id", "channel", "detail"]);
  });

  it("logs the channel id, hashing only ACP ids", () => {
    const acp = gatewayEvent({ channel: { id: "acp_3f2b9c1e-8d4a-4e1b-9f00-1a2b3c4d5e6f", type: "dm" }, proactive: true });
    expect(triageLogFields(acp, WAKE).channel).toBe(`acp_#${idHash("acp_3f2b9c1e-8d4a-4e1b-9f00-1a2b3c4d5e6f")}`);
    expect(triageLogFields(acp, WAKE).channel).not.toContain("3f2b9c1e");
    const thread = gatewayEvent({ channel: { id: "c1", type: "group", thread_id: "t7" }, proactive: true });
    expect(triageLogFields(thread, WAKE).channel).toBe("c1");
  });

  it("triageLogLine: the line's fields for a proactive event, nothing for a human message", () => {
    expect(triageLogLine({ event, verdict: WAKE })).toStrictEqual(triageLogFields(event, WAKE));
    expect(triageLogLine({ event, verdict: QUIET_HOURS })).toStrictEqual(triageLogFields(event, QUIET_HOURS));
    expect(triageLogLine({ event: { ...event, proactive: false }, verdict: WAKE })).toBeUndefined();
  });
});
