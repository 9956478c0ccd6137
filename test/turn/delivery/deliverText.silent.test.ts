import { describe, expect, it } from "vitest";
import { of, type Observable } from "rxjs";
import type { AgentEvent } from "../../../operators/delivery/agentEvent.js";
import type { OutboundMessage, SendReceipt } from "../../../operators/delivery/outboundMessage.js";
import { NO_RESPONSE_TEXT } from "../../../operators/delivery/text/textReply.js";
import { emptyTranscript, reduceTranscript, withAgentError, type TurnTranscript } from "../../../operators/delivery/turnTranscript.js";
import { deliverText } from "../../../src/turn/delivery/deliverText.js";
import { SILENT_REPLY_LOG } from "../../../src/turn/delivery/deliveryLogMessages.js";
import type { TurnContext } from "../../../src/turn/turn.js";
import { resolveConfig, type ConfigInput } from "../../../src/config/index.js";
import { gatewayEvent } from "../../helpers/events.js";
import { captureLogs, type LogRecord } from "../../helpers/logCapture.js";
import { testScheduler } from "../../helpers/marbles.js";

const NOTICE = "⚠️ _Session expired, starting fresh..._\n\n";
const turn = (...events: AgentEvent[]): TurnTranscript =>
  [...events, { type: "end", stopReason: "end_turn" } as AgentEvent].reduce(reduceTranscript, emptyTranscript());
const text = (value: string): AgentEvent => ({ type: "text", text: value });
const tool = (id: string, title: string): AgentEvent[] => [
  { type: "tool_start", id, title },
  { type: "tool_done", id, status: "completed" },
];

interface Delivery {
  readonly sent: OutboundMessage[];
  readonly logs: LogRecord[];
}

/** Runs deliverText in virtual time with instant acks; asserts it completes at once. */
function deliver(transcript: TurnTranscript, options: { proactive?: boolean; config?: ConfigInput; limit?: number } = {}): Delivery {
  const sent: OutboundMessage[] = [];
  const { logger, records } = captureLogs();
  const scheduler = testScheduler();
  scheduler.run(({ expectObservable }) => {
    const send = (message: OutboundMessage): Observable<SendReceipt> => {
      sent.push(message);
      return of({ messageId: "m" });
    };
    const context: TurnContext = { send, sendStatus: send, scheduler, logger, messageLimit: () => options.limit ?? 4096 };
    const event = gatewayEvent({ proactive: options.proactive ?? false });
    expectObservable(deliverText(transcript, event, context, resolveConfig(options.config ?? {}))).toBe("|");
  });
  return { sent, logs: records };
}

const texts = (delivery: Delivery) => delivery.sent.map((message) => message.content.text);
const silentLogs = (delivery: Delivery) => delivery.logs.filter((record) => record.msg === SILENT_REPLY_LOG);

describe("deliverText with [silent]", () => {
  it("sends nothing for a whole NO_REPLY and logs why", () => {
    const delivery = deliver(turn(text("**NO_"), text("REPLY**")));
    expect(texts(delivery)).toEqual([]);
    expect(silentLogs(delivery)).toEqual([expect.objectContaining({ level: 30, reason: "silent" })]);
  });

  it("strips a trailing token before chunking", () => {
    const delivery = deliver(turn(text("0123456789 NO_REPLY")), { limit: 10 });
    expect(texts(delivery)).toEqual(["0123456789"]);
    expect(silentLogs(delivery)).toEqual([]);
  });

  it("strips a leading glued token", () => {
    expect(texts(deliver(turn(text("NO_REPLYThe user is saying hi"))))).toEqual(["The user is saying hi"]);
  });

  it("keeps a mid-text token and a leading token followed by a space", () => {
    expect(texts(deliver(turn(text("Thanks, will do — NO_REPLY later"))))).toEqual(["Thanks, will do — NO_REPLY later"]);
    expect(texts(deliver(turn(text("NO_REPLY Sure"))))).toEqual(["NO_REPLY Sure"]);
  });

  it("judges only the answer after the last tool, and silences the tool summary with it", () => {
    const delivery = deliver(turn(text("let me look"), ...tool("t1", "search"), text("NO_REPLY")));
    expect(texts(delivery)).toEqual([]);
  });

  it("keeps the tool summary when a trailing token is stripped", () => {
    const [reply] = texts(deliver(turn(...tool("t1", "search"), text("Found it. NO_REPLY"))));
    expect(reply).toMatch(/search/);
    expect(reply?.endsWith("\nFound it.")).toBe(true);
  });

  it("reads past the directive header and keeps reply_to", () => {
    expect(texts(deliver(turn(text("[[reply_to:m-9]]\nNO_REPLY"))))).toEqual([]);
    const delivery = deliver(turn(text("[[reply_to:m-9]]\nOn it. NO_REPLY")));
    expect(texts(delivery)).toEqual(["On it."]);
    expect(delivery.sent[0]?.quote_message_id).toBe("m-9");
  });

  it("silences a turn on a fresh session too", () => {
    const reset = [{ type: "session_reset" } as AgentEvent];
    expect(texts(deliver(turn(...reset, text("NO_REPLY"))))).toEqual([]);
    expect(texts(deliver(turn(...reset, text("Hi. NO_REPLY"))))).toEqual([`${NOTICE}Hi.`]);
  });

  it("never swallows an agent error: a silent reply delivers the error alone", () => {
    const errored = withAgentError(turn(text("NO_REPLY")), new Error("Agent process died"));
    expect(texts(deliver(errored))).toEqual(["⚠️ Agent process died"]);
  });

  it("never swallows _(no response)_", () => {
    expect(texts(deliver(turn()))).toEqual([NO_RESPONSE_TEXT]);
  });

  it("NOTHING_TO_REPORT silences a proactive turn, final line included, and only a proactive one", () => {
    const report = turn(text("Checked 3 feeds.\nNOTHING_TO_REPORT"));
    const delivery = deliver(report, { proactive: true });
    expect(texts(delivery)).toEqual([]);
    expect(silentLogs(delivery)).toEqual([expect.objectContaining({ reason: "nothing_to_report" })]);
    expect(texts(deliver(report))).toEqual(["Checked 3 feeds.\nNOTHING_TO_REPORT"]);
  });

  it("uses the configured tokens", () => {
    const config = { silent: { token: "SHH", report_token: "ALL_CLEAR" } };
    expect(texts(deliver(turn(text("shh")), { config }))).toEqual([]);
    expect(texts(deliver(turn(text("ALL_CLEAR")), { config, proactive: true }))).toEqual([]);
    expect(texts(deliver(turn(text("NO_REPLY")), { config }))).toEqual(["NO_REPLY"]);
  });

  it("delivers the text as written when disabled", () => {
    const config = { silent: { enabled: false } };
    expect(texts(deliver(turn(text("NO_REPLY")), { config }))).toEqual(["NO_REPLY"]);
  });
});

describe("deliverText: a per-turn [[delivery:…]] declaration", () => {
  it("warns when it differs from [delivery] schema and still delivers the turn", () => {
    const delivery = deliver(turn(text("[[delivery:other.v2]]\nhello")));
    expect(texts(delivery)).toEqual(["hello"]);
    expect(delivery.logs.find((r) => r.msg === "turn declared a delivery schema this deployment does not serve")).toMatchObject({
      declared: "other.v2",
      configured: "openab.turn.v1",
    });
  });

  it("says nothing when it matches", () => {
    const delivery = deliver(turn(text("[[delivery:openab.turn.v1]]\nhello")));
    expect(texts(delivery)).toEqual(["hello"]);
    expect(delivery.logs.some((r) => r.msg === "turn declared a delivery schema this deployment does not serve")).toBe(false);
  });
});
