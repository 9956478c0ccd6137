import { describe, expect, it } from "vitest";
import { Subject, type Observable } from "rxjs";
import type { OutboundMessage, SendReceipt } from "../../operators/delivery/outboundMessage.js";
import { denyEchoText } from "../../operators/ingress/trustGate.js";
import { TRUST_ECHO_BACKLOG, TRUST_ECHO_CONCURRENCY, TrustEchoes } from "../../src/edge/trustEchoes.js";
import type { SendOptions } from "../../src/pipeline/send.js";
import { gatewayEvent } from "../helpers/events.js";
import { captureLogs } from "../helpers/logCapture.js";

// The queue in front of the broker's send: each echo a proactive send, a few at a time, a bounded
// backlog. The sends themselves, shaped and over real sockets: test/e2e/trustEchoLimits.test.ts.

/** A send whose answers the test gives: each call's message, options and the subject that answers it. */
function heldSend() {
  const calls: { message: OutboundMessage; options: SendOptions | undefined; answer: Subject<SendReceipt> }[] = [];
  const send = (message: OutboundMessage, options?: SendOptions): Observable<SendReceipt> => {
    const answer = new Subject<SendReceipt>();
    calls.push({ message, options, answer });
    return answer;
  };
  const settle = (index: number) => {
    calls[index]?.answer.next({ messageId: `m${index}` });
    calls[index]?.answer.complete();
  };
  return { send, calls, settle };
}

const event = (i: number, type = "dm") => gatewayEvent({ event_id: `e${i}`, channel: { id: `c${i}`, type }, sender: { id: `s${i}`, name: "s", display_name: "S", is_bot: false } });
const echo = (i: number): OutboundMessage => ({ reply_to: `e${i}`, platform: "telegram", channel: { id: `c${i}` }, content: { type: "text", text: denyEchoText(`s${i}`) } });

describe("TrustEchoes", () => {
  it("sends each echo through the broker's send as a proactive send, in a group or not as its conversation is", () => {
    const { send, calls } = heldSend();
    const echoes = new TrustEchoes(send, captureLogs().logger);
    echoes.post(echo(1), event(1));
    echoes.post(echo(2), event(2, "group"));
    expect(calls.map((call) => [call.message.channel.id, call.options?.sendClass])).toEqual([
      ["c1", { group: false, human: false }],
      ["c2", { group: true, human: false }],
    ]);
  });

  it(`sends ${TRUST_ECHO_CONCURRENCY} at once; the next goes as one is answered, in order`, () => {
    const { send, calls, settle } = heldSend();
    const echoes = new TrustEchoes(send, captureLogs().logger);
    for (let i = 0; i < 20; i++) echoes.post(echo(i), event(i));
    expect(calls).toHaveLength(TRUST_ECHO_CONCURRENCY);
    settle(3);
    expect(calls.map((call) => call.message.channel.id).slice(TRUST_ECHO_CONCURRENCY)).toEqual([`c${TRUST_ECHO_CONCURRENCY}`]);
  });

  it(`holds at most ${TRUST_ECHO_BACKLOG}: past that each echo is dropped with a stable reason, and room comes back as they go`, () => {
    const { send, calls, settle } = heldSend();
    const { logger, records } = captureLogs();
    const echoes = new TrustEchoes(send, logger);
    for (let i = 0; i < TRUST_ECHO_BACKLOG + 3; i++) echoes.post(echo(i), event(i));
    const dropped = records.filter((r) => r.msg === "trust echo not sent");
    expect(dropped.map((r) => [r.reason, r.event_id])).toEqual([
      ["echo_backlog", `e${TRUST_ECHO_BACKLOG}`],
      ["echo_backlog", `e${TRUST_ECHO_BACKLOG + 1}`],
      ["echo_backlog", `e${TRUST_ECHO_BACKLOG + 2}`],
    ]);
    settle(0);
    echoes.post(echo(5000), event(5000));
    expect(records.filter((r) => r.msg === "trust echo not sent")).toHaveLength(3);
    // Answered one by one, every echo taken goes out, the last one posted after room came back too.
    for (let i = 1; i < calls.length; i++) settle(i);
    expect(calls).toHaveLength(TRUST_ECHO_BACKLOG + 1);
    expect(calls.at(-1)?.message.channel.id).toBe("c5000");
  });

  it("logs a send that failed and goes on with the next", () => {
    const { send, calls } = heldSend();
    const { logger, records } = captureLogs();
    const echoes = new TrustEchoes(send, logger);
    for (let i = 0; i <= TRUST_ECHO_CONCURRENCY; i++) echoes.post(echo(i), event(i));
    calls[0]?.answer.error(new Error("gateway refused"));
    expect(records.filter((r) => r.msg === "trust echo not sent").map((r) => r.reason)).toEqual(["echo_failed"]);
    expect(calls).toHaveLength(TRUST_ECHO_CONCURRENCY + 1);
  });

  it("close drops what was not answered (one line with the number) and takes nothing after", () => {
    const { send, calls } = heldSend();
    const { logger, records } = captureLogs();
    const echoes = new TrustEchoes(send, logger);
    for (let i = 0; i < 10; i++) echoes.post(echo(i), event(i));
    echoes.close();
    echoes.close();
    echoes.post(echo(99), event(99));
    expect(calls).toHaveLength(TRUST_ECHO_CONCURRENCY);
    expect(calls.every((call) => !call.answer.observed)).toBe(true);
    expect(records.filter((r) => r.msg === "trust echoes dropped at stop").map((r) => [r.reason, r.dropped])).toEqual([["stopping", 10]]);
  });
});
