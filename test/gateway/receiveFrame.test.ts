import { describe, expect, it } from "vitest";
import { FRAME_TOO_LARGE_STATUS } from "../../operators/ingress/frames/oversizeEvent.js";
import { receiveFrame, type FrameSink } from "../../src/gateway/receiveFrame.js";
import { gatewayEvent } from "../helpers/events.js";
import { captureLogs } from "../helpers/logCapture.js";
import { recordingInstruments } from "../helpers/recordingInstruments.js";

const MAX = 2048;
const frame = (value: unknown) => Buffer.from(JSON.stringify(value));

/** Reads `raw` as one text frame; returns what reached the sink, what was logged and what was counted. */
function read(raw: Buffer) {
  const { logger, records } = captureLogs();
  const { instruments, calls } = recordingInstruments();
  const received: [keyof FrameSink, unknown][] = [];
  receiveFrame(raw, { logger, maxFrameBytes: MAX, instruments }, {
    event: (event) => void received.push(["event", event]),
    response: (response) => void received.push(["response", response]),
    hello: (hello) => void received.push(["hello", hello]),
  });
  return { received, records, calls };
}

describe("receiveFrame", () => {
  it("hands an event, an ack and a hello to their sinks, logging and counting nothing", () => {
    const event = read(frame(gatewayEvent()));
    expect(event.received).toMatchObject([["event", { event_id: "evt-1" }]]);
    const ack = read(frame({ schema: "openab.gateway.response.v1", request_id: "req_1", success: true }));
    expect(ack.received).toMatchObject([["response", { request_id: "req_1", success: true }]]);
    const hello = read(frame({ schema: "openab.gateway.hello.v1", protocol_version: 1 }));
    expect(hello.received).toMatchObject([["hello", { protocol_version: 1 }]]);
    expect([event, ack, hello].flatMap(({ records, calls }) => [...records, ...calls])).toEqual([]);
  });

  it("a hello that does not parse reaches the hello sink as undefined (the connection stays as it was)", () => {
    expect(read(frame({ schema: "openab.gateway.hello.v1", protocol_version: "one" })).received).toEqual([["hello", undefined]]);
  });

  it("drops what it cannot read with a stable reason; a malformed ack is not counted as an invalid event", () => {
    const notUtf8 = read(Buffer.from([0x7b, 0xff, 0x7d]));
    const notJson = read(Buffer.from("{nope"));
    const badAck = read(frame({ schema: "openab.gateway.response.v1" }));
    expect([notUtf8, notJson, badAck].map(({ received }) => received)).toEqual([[], [], []]);
    expect([notUtf8, notJson, badAck].map(({ records }) => records.map((r) => [r.msg, r.reason, r.bytes]))).toEqual([
      [["gateway frame dropped", "not_utf8", 3]],
      [["gateway frame dropped", "not_json", 5]],
      [["gateway frame dropped", "invalid_response", expect.any(Number)]],
    ]);
    expect([notUtf8, notJson, badAck].map(({ calls }) => calls)).toEqual([[["events", "invalid"]], [["events", "invalid"]], []]);
  });

  it("a frame over maxFrameBytes: its event without the inline bytes, or dropped when even that is not an event", () => {
    const data = "A".repeat(4 * MAX);
    const attachment = { type: "audio", filename: "a.ogg", mime_type: "audio/ogg", data, size: data.length };
    const kept = read(frame(gatewayEvent({ content: { type: "text", text: "hi", attachments: [attachment] } })));
    expect(kept.received).toMatchObject([["event", { content: { text: "hi", attachments: [{ data: "", status: FRAME_TOO_LARGE_STATUS }] } }]]);
    expect(kept.records).toMatchObject([{ msg: "gateway frame over max_frame_bytes; its inline attachments not delivered", reason: "frame_too_large", attachments: 1, maxFrameBytes: MAX }]);
    expect(kept.calls).toEqual([]);

    const dropped = read(frame(gatewayEvent({ text: "x".repeat(4 * MAX) })));
    expect(dropped.received).toEqual([]);
    expect(dropped.records).toMatchObject([{ msg: "gateway frame dropped" }]);
    expect(dropped.calls).toEqual([["events", "invalid"]]);
  });
});
