import { describe, expect, it } from "vitest";
import { triageLogFields, triageLogLine } from "../../operators/triage/triageLog.js";
import { QUIET_HOURS, WAKE } from "../../operators/triage/triageVerdict.js";
import { TRIAGE_SUPPRESS_LOG, TRIAGE_WAKE_LOG, triageLogMessage } from "../../src/turn/triageLogMessages.js";
import { captureLogs } from "../helpers/logCapture.js";
import { gatewayEvent } from "../helpers/events.js";

const event = gatewayEvent({ event_id: "evt-1a2b", platform: "telegram", channel: { id: "test-channel", type: "dm" }, proactive: true });

describe("triage log messages (§13.5)", () => {
  it("has upstream's messages, exactly", () => {
    expect(TRIAGE_WAKE_LOG).toBe("proactive event admitted by triage");
    expect(TRIAGE_SUPPRESS_LOG).toBe("proactive event suppressed by triage");
  });

  it("names the line by the decision in its fields", () => {
    expect(triageLogMessage(triageLogFields(event, WAKE))).toBe(TRIAGE_WAKE_LOG);
    expect(triageLogMessage(triageLogFields(event, QUIET_HOURS))).toBe(TRIAGE_SUPPRESS_LOG);
  });

  it("in pino JSON the bubble-test grep matches: \"decision\":\"suppressed\",\"reason\":\"quiet_hours\"", () => {
    const { logger, records } = captureLogs("info");
    const line = triageLogLine({ event, verdict: QUIET_HOURS });
    if (line !== undefined) logger.info(line, triageLogMessage(line));
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ level: 30, msg: TRIAGE_SUPPRESS_LOG, ...triageLogFields(event, QUIET_HOURS) });
    expect(JSON.stringify(records[0])).toContain('"decision":"suppressed","reason":"quiet_hours"');
  });
});
