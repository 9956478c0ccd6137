import { describe, expect, it } from "vitest";
import { idHash } from "../../../operators/triage/idHash.js";
import { TRIAGE_SUPPRESS_LOG, TRIAGE_WAKE_LOG, triageLogFields, triageLogLine } from "../../../operators/triage/triageLog.js";
import { cooldownVerdict, dailyCapVerdict, DUPLICATE, QUIET_HOURS, WAKE } from "../../../operators/triage/triageVerdict.js";
import { captureLogs } from "../../helpers/logCapture.js";
import { gatewayEvent } from "../../helpers/events.js";

const event = gatewayEvent({ event_id: "evt-1a2b", platform: "telegram", channel: { id: "test-channel", type: "dm" }, proactive: true });

describe("triage log lines (§13.5)", () => {
  it("has upstream's messages, exactly", () => {
    expect(TRIAGE_WAKE_LOG).toBe("proactive event admitted by triage");
    expect(TRIAGE_SUPPRESS_LOG).toBe("proactive event suppressed by triage");
  });

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

  it("triageLogLine: the line for a proactive event, nothing for a human message", () => {
    expect(triageLogLine({ event, verdict: WAKE })).toEqual({ msg: TRIAGE_WAKE_LOG, fields: triageLogFields(event, WAKE) });
    expect(triageLogLine({ event, verdict: QUIET_HOURS })).toEqual({ msg: TRIAGE_SUPPRESS_LOG, fields: triageLogFields(event, QUIET_HOURS) });
    expect(triageLogLine({ event: { ...event, proactive: false }, verdict: WAKE })).toBeUndefined();
  });

  it("in pino JSON the bubble-test grep matches: \"decision\":\"suppressed\",\"reason\":\"quiet_hours\"", () => {
    const { logger, records } = captureLogs("info");
    const line = triageLogLine({ event, verdict: QUIET_HOURS });
    if (line !== undefined) logger.info(line.fields, line.msg);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ level: 30, msg: TRIAGE_SUPPRESS_LOG, ...triageLogFields(event, QUIET_HOURS) });
    expect(JSON.stringify(records[0])).toContain('"decision":"suppressed","reason":"quiet_hours"');
  });
});
