import { describe, expect, it } from "vitest";
import { parseGatewayFrame } from "../../../../operators/ingress/frames/gatewayFrames.js";

const MAX = 64 * 1024;

// Protocol §3.1: the frame OpenAB's fake gateway emits.
const example31 = `{
  "schema": "openab.gateway.event.v1",
  "event_id": "evt-1a2b3c4d",
  "timestamp": "2026-08-25T03:00:00Z",
  "platform": "telegram",
  "channel": {"id": "test-channel", "type": "dm"},
  "sender": {"id": "test-user", "name": "tester", "display_name": "Tester", "is_bot": false},
  "content": {"type": "text", "text": "hello"},
  "mentions": [],
  "message_id": "msg-5e6f7a8b",
  "proactive": false
}`;

// Protocol §3.3 as upstream's docs print it: no `timestamp`, no `mentions`.
const example33 = `{
  "schema": "openab.gateway.event.v1",
  "event_id": "gmail-thread-18f2c",
  "platform": "telegram",
  "channel": { "id": "123456", "type": "dm" },
  "sender": { "id": "gmail", "name": "gmail", "display_name": "Gmail", "is_bot": false },
  "content": { "type": "text", "text": "New mail from airline@example.com: flight delayed" },
  "message_id": "gmail-18f2c",
  "proactive": true
}`;

const minimalEvent = () => ({
  schema: "openab.gateway.event.v1",
  event_id: "e1",
  timestamp: "t",
  platform: "telegram",
  channel: { id: "c1", type: "group" },
  sender: { id: "u1", name: "ann", display_name: "Ann", is_bot: false },
  content: { type: "text", text: "SECRET-TEXT" },
  message_id: "m1",
});

const parse = (value: unknown, max = MAX) => parseGatewayFrame(JSON.stringify(value), max);

describe("parseGatewayFrame: events", () => {
  it("parses the §3.1 example into exactly a GatewayEvent", () => {
    expect(parseGatewayFrame(example31, MAX)).toStrictEqual({
      kind: "event",
      event: {
        schema: "openab.gateway.event.v1",
        event_id: "evt-1a2b3c4d",
        timestamp: "2026-08-25T03:00:00Z",
        platform: "telegram",
        channel: { id: "test-channel", type: "dm" },
        sender: { id: "test-user", name: "tester", display_name: "Tester", is_bot: false },
        content: { type: "text", text: "hello", attachments: [] },
        mentions: [],
        message_id: "msg-5e6f7a8b",
        proactive: false,
      },
    });
  });

  it("parses the §3.3 proactive example without a timestamp: timestamp '', mentions []", () => {
    expect(parseGatewayFrame(example33, MAX)).toStrictEqual({
      kind: "event",
      event: {
        schema: "openab.gateway.event.v1",
        event_id: "gmail-thread-18f2c",
        timestamp: "",
        platform: "telegram",
        channel: { id: "123456", type: "dm" },
        sender: { id: "gmail", name: "gmail", display_name: "Gmail", is_bot: false },
        content: { type: "text", text: "New mail from airline@example.com: flight delayed", attachments: [] },
        mentions: [],
        message_id: "gmail-18f2c",
        proactive: true,
      },
    });
  });

  it("drops unknown fields at every level", () => {
    const frame = {
      ...minimalEvent(),
      event_type: "message",
      raw: {},
      scope: { trust_scope_id: "x", is_dm: true },
      recipient: { id: "bot" },
      mention_entities: [{ id: "1" }],
      channel: { id: "c1", type: "group", thread_id: "t1", title: "Room" },
      sender: { id: "u1", name: "ann", display_name: "Ann", is_bot: false, avatar: "a.png" },
      content: {
        type: "text",
        text: "hi",
        extra: 1,
        attachments: [{ type: "image", filename: "a.png", mime_type: "image/png", data: "AA==", size: 1, width: 5 }],
      },
    };
    expect(parse(frame)).toStrictEqual({
      kind: "event",
      event: {
        schema: "openab.gateway.event.v1",
        event_id: "e1",
        timestamp: "t",
        platform: "telegram",
        channel: { id: "c1", type: "group", thread_id: "t1" },
        sender: { id: "u1", name: "ann", display_name: "Ann", is_bot: false },
        content: {
          type: "text",
          text: "hi",
          attachments: [{ type: "image", filename: "a.png", mime_type: "image/png", data: "AA==", size: 1 }],
        },
        mentions: [],
        message_id: "m1",
        proactive: false,
      },
    });
  });

  it("does not check the schema string, and normalizes it", () => {
    const { schema: _schema, ...withoutSchema } = minimalEvent();
    for (const frame of [{ ...minimalEvent(), schema: "openab.gateway.event.v2" }, withoutSchema]) {
      const parsed = parse(frame);
      expect(parsed.kind === "event" && parsed.event.schema).toBe("openab.gateway.event.v1");
    }
  });

  it("reads null as absent for optional fields and fills the defaults", () => {
    const frame = {
      ...minimalEvent(),
      timestamp: null,
      mentions: null,
      proactive: null,
      channel: { id: "c1", type: "dm", thread_id: null },
      content: {
        type: "text",
        text: "",
        attachments: [{ type: "text_file", filename: "a.txt", mime_type: "text/plain", size: 0, path: null, status: null }],
      },
    };
    const parsed = parse(frame);
    expect(parsed.kind).toBe("event");
    if (parsed.kind !== "event") return;
    expect(parsed.event.timestamp).toBe("");
    expect(parsed.event.mentions).toStrictEqual([]);
    expect(parsed.event.proactive).toBe(false);
    expect(parsed.event.channel).toStrictEqual({ id: "c1", type: "dm" });
    expect(parsed.event.content.attachments).toStrictEqual([
      { type: "text_file", filename: "a.txt", mime_type: "text/plain", data: "", size: 0 },
    ]);
  });

  it("keeps attachment path and status when given", () => {
    const attachment = { type: "audio", filename: "v.ogg", mime_type: "audio/ogg", size: 9, path: "/tmp/v", status: "too_large: 30 MB" };
    const parsed = parse({ ...minimalEvent(), content: { type: "text", text: "", attachments: [attachment] } });
    expect(parsed.kind === "event" && parsed.event.content.attachments).toStrictEqual([{ ...attachment, data: "" }]);
  });

  it("accepts a Buffer", () => {
    expect(parseGatewayFrame(Buffer.from(example31, "utf8"), MAX).kind).toBe("event");
  });
});

describe("parseGatewayFrame: rejections", () => {
  it("too_large: over maxFrameBytes in UTF-8 bytes, checked before parsing; exactly the limit passes", () => {
    const frame = JSON.stringify({ ...minimalEvent(), content: { type: "text", text: "é".repeat(10) } });
    const bytes = Buffer.byteLength(frame, "utf8");
    expect(bytes).toBeGreaterThan(frame.length);
    expect(parseGatewayFrame(frame, bytes).kind).toBe("event");
    expect(parseGatewayFrame(frame, bytes - 1)).toStrictEqual({
      kind: "rejected",
      reason: "too_large",
      detail: `${bytes} bytes > ${bytes - 1}`,
    });
    expect(parseGatewayFrame(Buffer.from(frame), bytes - 1)).toMatchObject({ reason: "too_large" });
    expect(parseGatewayFrame("x".repeat(100), 99)).toMatchObject({ kind: "rejected", reason: "too_large" });
  });

  it("not_json: no detail (the JSON parser's message would quote the frame)", () => {
    expect(parseGatewayFrame("{SECRET-TEXT", MAX)).toStrictEqual({ kind: "rejected", reason: "not_json" });
    expect(parseGatewayFrame("", MAX)).toStrictEqual({ kind: "rejected", reason: "not_json" });
  });

  it("not_object: arrays, null and primitives, with the JSON type as detail", () => {
    expect(parseGatewayFrame("[1,2]", MAX)).toStrictEqual({ kind: "rejected", reason: "not_object", detail: "array" });
    expect(parseGatewayFrame("null", MAX)).toStrictEqual({ kind: "rejected", reason: "not_object", detail: "null" });
    expect(parseGatewayFrame("42", MAX)).toStrictEqual({ kind: "rejected", reason: "not_object", detail: "number" });
    expect(parseGatewayFrame('"SECRET-TEXT"', MAX)).toStrictEqual({ kind: "rejected", reason: "not_object", detail: "string" });
  });

  it("invalid_event: names the failing paths, never the frame's content", () => {
    const { sender: _sender, ...noSender } = minimalEvent();
    const frame = { ...noSender, message_id: 42, content: { type: "text", text: "SECRET-TEXT", attachments: [{ size: "SECRET-SIZE" }] } };
    const parsed = parse(frame);
    expect(parsed).toMatchObject({ kind: "rejected", reason: "invalid_event" });
    if (parsed.kind !== "rejected") return;
    expect(parsed.detail).toContain("sender: Invalid input");
    expect(parsed.detail).toContain("content.attachments[0].");
    expect(parsed.detail).toMatch(/more$/);
    expect(parsed.detail).not.toContain("SECRET");
  });

  it("invalid_event: a required field of the wrong type", () => {
    expect(parse({ ...minimalEvent(), sender: { id: "u1", name: "a", display_name: "A", is_bot: "no" } })).toStrictEqual({
      kind: "rejected",
      reason: "invalid_event",
      detail: "sender.is_bot: Invalid input: expected boolean, received string",
    });
    expect(parse({ ...minimalEvent(), event_id: undefined })).toMatchObject({ reason: "invalid_event", detail: expect.stringMatching(/^event_id: /) });
  });

  it("an event's ids are kept exactly as written, control characters, escapes and length included (a reply must name the same chat)", () => {
    const cases: Record<string, unknown>[] = [
      { event_id: "e\u0000" },
      { platform: "tele\u001b[31mgram" },
      { channel: { id: "c\n1", type: "group" } },
      { channel: { id: "c1", type: "group\u202e" } },
      { channel: { id: "c1", type: "group", thread_id: "t".repeat(5_000) } },
      { sender: { id: "u\t1", name: "ann", display_name: "Ann", is_bot: false } },
      { message_id: "m\ud800" },
    ];
    for (const fields of cases) {
      const parsed = parse({ ...minimalEvent(), ...fields });
      expect(parsed.kind, JSON.stringify(fields)).toBe("event");
      expect((parsed as { event: unknown }).event).toMatchObject(fields);
    }
  });

  it("an event's ids may be any plain text up to 500 chars; its text and names are content, never judged", () => {
    const event = { ...minimalEvent(), event_id: "x".repeat(500), channel: { id: "-100123:topic/好", type: "group", thread_id: "1700000000.123456" } };
    const hostile = { sender: { id: "u1", name: "\u001b[31mann\u0000", display_name: "\u202eAnn", is_bot: false }, content: { type: "text", text: "\u001b]0;x\u0007\u0000" } };
    expect(parse(event)).toMatchObject({ kind: "event" });
    expect(parse({ ...minimalEvent(), ...hostile })).toMatchObject({ kind: "event", event: hostile });
  });

  it("a rejection's detail is bounded and clean even where a path holds the gateway's own key", () => {
    const key = `\u001b[2J${"p".repeat(50_000)}`;
    const parsed = parse({ schema: "openab.gateway.hello.v1", protocol_version: 1, capabilities: { [key]: { send_ack: "yes" } } });
    expect(parsed).toMatchObject({ kind: "rejected", reason: "invalid_hello" });
    if (parsed.kind !== "rejected") return;
    expect(parsed.detail?.length).toBeLessThanOrEqual(300);
    expect(parsed.detail).toMatch(/^capabilities\.p+…\(\+[\d,]+ chars\)$/);
  });

  it("invalid_hello: a hello schema that does not parse is not read as an event", () => {
    expect(parse({ ...minimalEvent(), schema: "openab.gateway.hello.v1" })).toStrictEqual({
      kind: "rejected",
      reason: "invalid_hello",
      detail: "protocol_version: Invalid input: expected number, received undefined",
    });
  });

  it("invalid_response: a response schema without a request_id", () => {
    expect(parse({ schema: "openab.gateway.response.v1", success: true })).toStrictEqual({
      kind: "rejected",
      reason: "invalid_response",
      detail: "request_id: Invalid input: expected string, received undefined",
    });
  });
});

describe("parseGatewayFrame: classification order (§2.4)", () => {
  it("a hello.v1 is a hello", () => {
    const parsed = parse({ schema: "openab.gateway.hello.v1", protocol_version: 1, capabilities: {} });
    expect(parsed).toStrictEqual({
      kind: "hello",
      hello: { schema: "openab.gateway.hello.v1", protocol_version: 1, capabilities: {} },
    });
  });

  it("a response.v1 is a response, even with every event field present", () => {
    const parsed = parse({ ...minimalEvent(), schema: "openab.gateway.response.v1", request_id: "req_1", success: true });
    expect(parsed).toStrictEqual({
      kind: "response",
      response: { schema: "openab.gateway.response.v1", request_id: "req_1", success: true, message_id: "m1" },
    });
  });
});
