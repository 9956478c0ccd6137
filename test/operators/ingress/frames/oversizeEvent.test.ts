import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { parseGatewayFrame } from "../../../../operators/ingress/frames/gatewayFrames.js";
import { FRAME_TOO_LARGE_STATUS, oversizeEvent } from "../../../../operators/ingress/frames/oversizeEvent.js";
import { expectLinear } from "../../../helpers/linearTime.js";
import { gatewayEvent } from "../../../helpers/events.js";

const event = (content: Record<string, unknown>) => gatewayEvent({ event_id: "e1", content: { type: "text", text: "hello", ...content } });

const attachment = (type: string, data: string) => ({ type, filename: `${type}.bin`, mime_type: "application/octet-stream", data, size: data.length });
const frame = (value: unknown) => Buffer.from(JSON.stringify(value));
const MAX = 2048;

describe("oversizeEvent", () => {
  it("keeps the event and sets every attachment's inline bytes aside, each with the not-delivered status", () => {
    const raw = frame(event({ attachments: [attachment("audio", "A".repeat(10_000)), attachment("image", "iVBORw0K")] }));
    const kept = oversizeEvent(raw, MAX);
    expect(kept.kind).toBe("event");
    if (kept.kind !== "event") return;
    expect(kept.attachments).toBe(2);
    expect(kept.event.content.text).toBe("hello");
    expect(kept.event.content.attachments).toEqual([
      { ...attachment("audio", ""), size: 10_000, status: FRAME_TOO_LARGE_STATUS },
      { ...attachment("image", ""), size: 8, status: FRAME_TOO_LARGE_STATUS },
    ]);
  });

  it("a value shorter than its stand-in stays: a few bytes", () => {
    const raw = frame(event({ attachments: [attachment("audio", "A".repeat(10_000)), attachment("image", "iVBO")] }));
    const kept = oversizeEvent(raw, MAX);
    expect(kept.kind === "event" && kept.event.content.attachments?.[1]).toEqual(attachment("image", "iVBO"));
    expect(kept).toMatchObject({ attachments: 1 });
  });

  it("reads keys, not text: a quoted \"data\" inside a string, escaped quotes and trailing backslashes change nothing", () => {
    const text = 'he wrote "data": "x" and \\"data\\": \\ then a\\';
    const raw = frame({ ...event({ text, attachments: [attachment("audio", "B".repeat(5_000))] }), data: 42 });
    const kept = oversizeEvent(raw, MAX);
    expect(kept.kind === "event" && kept.event.content.text).toBe(text);
  });

  it("whitespace around the colon is still a key and its value", () => {
    const raw = Buffer.from(JSON.stringify(event({ attachments: [attachment("audio", "C".repeat(5_000))] }), null, 2).replace('"data": ', '"data" \n :\t '));
    expect(oversizeEvent(raw, MAX)).toMatchObject({ kind: "event", attachments: 1 });
  });

  it.each([
    ["a text over the limit", frame(event({ text: "x".repeat(5_000), attachments: [attachment("audio", "D".repeat(5_000))] }))],
    ["no attachment to set aside", frame(event({ text: "x".repeat(5_000) }))],
    ["a hello", frame({ schema: "openab.gateway.hello.v1", data: "E".repeat(5_000) })],
    ["not JSON", Buffer.from(`{"data": "${"F".repeat(5_000)}" nope`)],
    ["an unclosed string", Buffer.from(`{"data": "${"G".repeat(5_000)}`)],
    ["what is left still over the limit", frame(event({ attachments: Array.from({ length: 40 }, () => attachment("audio", "H")) }))],
  ])("%s: rejected as too_large, with a size and never the frame's text", (_name, raw) => {
    const kept = oversizeEvent(raw, MAX);
    expect(kept).toEqual({ kind: "rejected", reason: "too_large", detail: `${raw.byteLength} bytes > ${MAX}` });
  });

  test.prop([fc.string({ unit: "binary" }), fc.string({ unit: "binary" }), fc.array(fc.string({ unit: "binary", maxLength: 50 }), { maxLength: 4 })])(
    "any text and file names: the kept event is the parsed event with each attachment's bytes set aside",
    (text, filename, names) => {
      const attachments = [filename, ...names].map((name) => ({ ...attachment("audio", "Z".repeat(3_000)), filename: name }));
      const raw = frame(event({ text, attachments }));
      const whole = parseGatewayFrame(raw, raw.byteLength);
      const kept = oversizeEvent(raw, raw.byteLength - 1);
      expect(whole.kind).toBe("event");
      if (whole.kind !== "event") return;
      const expected = { ...whole.event, content: { ...whole.event.content, attachments: whole.event.content.attachments?.map((a) => ({ ...a, data: "", status: FRAME_TOO_LARGE_STATUS })) } };
      expect(kept).toEqual({ kind: "event", event: expected, attachments: attachments.length });
    },
  );

  it("is linear: megabytes of escaped quotes and backslashes, and of colon-separated \"data\" keys, each scanned whole", () => {
    const escapes = (count: number) => Buffer.from(`{"text": "${'\\"\\\\'.repeat(count)}"}`);
    const keys = (count: number) => Buffer.from(`{${'"data":"12345678","data" : 1,'.repeat(count)}"x":1}`);
    // A limit nothing reaches: the whole frame is scanned (and parsed), not cut short.
    const scan = (raw: Buffer) => oversizeEvent(raw, raw.byteLength * 2);
    expect(scan(escapes(400_000)).kind).toBe("rejected");
    expect(scan(keys(20_000)).kind).toBe("rejected");
    expectLinear(escapes, scan, 400_000, "escapes");
    expectLinear(keys, scan, 20_000, "keys");
  });
});
