import { afterEach, describe, expect, it } from "vitest";
import type { OutboundMessage } from "../../operators/delivery/outboundMessage.js";
import { DevGateway, type DevGatewayOptions, type ReplyFrame } from "../../src/devgateway/devGateway.js";
import { GatewayConnector, type GatewayConnectorOptions } from "../../src/gateway/connector.js";
import { gatewayUrl, replyFrame } from "../../src/gateway/replyFrame.js";
import { SendError } from "../../src/wire/index.js";
import { captureLogs, type LogRecord } from "../helpers/logCapture.js";
import { recordingInstruments } from "../helpers/recordingInstruments.js";
import { until, userEvent } from "../helpers/stack.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { FRAME_TOO_LARGE_STATUS } from "../../operators/ingress/frames/oversizeEvent.js";
import { defaultIngress } from "../helpers/ingressRules.js";

const message: OutboundMessage = {
  reply_to: "evt-1",
  platform: "telegram",
  channel: { id: "chat-1" },
  content: { type: "text", text: "on it" },
};

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function connect(
  gatewayOptions: DevGatewayOptions = {},
  token?: string,
  urlOf: (gateway: DevGateway) => string = (gateway) => gateway.url,
  overrides: Partial<GatewayConnectorOptions> = {},
): Promise<{ connector: GatewayConnector; gateway: DevGateway; records: LogRecord[]; frames: ReplyFrame[] }> {
  const gateway = await DevGateway.start(gatewayOptions);
  const frames: ReplyFrame[] = [];
  gateway.received.subscribe((r) => r.kind === "reply" && frames.push(r.frame));
  const { logger, records } = captureLogs();
  const url = urlOf(gateway);
  const connector = new GatewayConnector({
    url,
    ingress: defaultIngress,
    ...(url === gateway.url ? { token: token ?? gateway.token } : {}),
    logger,
    maxFrameBytes: 1 << 20,
    clientVersion: "test",
    legacyAckTimeoutMs: 200,
    requiredAckTimeoutMs: 300,
    streaming: false,
    streamingPlaceholder: true,
    backoff: { initialMs: 50, maxMs: 200 },
    ...overrides,
  });
  cleanup.push(() => gateway.close(), () => connector.close());
  connector.start();
  return { connector, gateway, records, frames };
}

const connected = (connector: GatewayConnector) => until(() => connector.isConnected, 10_000);

describe("GatewayConnector", () => {
  it("sends without a request_id and resolves once written when no ack is wanted (legacy text mode)", async () => {
    const { connector, frames } = await connect();
    await connected(connector);
    expect(await connector.send(message, { wantAck: false })).toEqual({ messageId: "gw_sent" });
    await until(() => frames.length === 1, 5_000);
    expect(frames[0]?.request_id).toBeUndefined();
  });

  it("rejects a message it cannot write with write_failed instead of throwing, and keeps sending", async () => {
    const { connector, frames } = await connect();
    await connected(connector);
    // A user's beforeSend stage can hand on anything; a value JSON cannot spell makes the frame throw.
    const unwritable = { ...message, content: { type: "text", text: 1n } } as unknown as OutboundMessage;
    for (const wantAck of [false, true]) {
      let sent: Promise<unknown> | undefined;
      expect(() => (sent = connector.send(unwritable, { wantAck }))).not.toThrow();
      await expect(sent).rejects.toMatchObject({ name: "SendError", code: "write_failed" });
    }
    expect(await connector.send(message, { wantAck: false })).toEqual({ messageId: "gw_sent" });
    await until(() => frames.length === 1, 5_000);
    expect(frames).toHaveLength(1);
  });

  it("waits for the ack by request_id and returns the gateway's message id", async () => {
    const { connector, frames } = await connect();
    await connected(connector);
    const receipt = await connector.send(message, { wantAck: true });
    expect(receipt.messageId).toMatch(/^gw-[0-9a-f]{8}$/);
    expect(frames[0]?.request_id).toMatch(/^req_[0-9a-f-]{36}$/);
  });

  it("counts a legacy send as sent, with a warning, when no ack comes within the timeout (as upstream)", async () => {
    const { connector, records } = await connect({ ack: false });
    await connected(connector);
    expect(await connector.send(message, { wantAck: true })).toEqual({ messageId: "gw_sent" });
    expect(records.find((r) => r.msg === "legacy gateway reply timed out")).toMatchObject({ reason: "ack_timeout" });
  });

  it("fails a send the gateway answers with success:false", async () => {
    const { connector, records } = await connect({ ack: () => ({ success: false, message_id: null, error: "chat not found" }) });
    await connected(connector);
    const failure = connector.send(message, { wantAck: true });
    await expect(failure).rejects.toBeInstanceOf(SendError);
    await expect(failure).rejects.toMatchObject({ code: "legacy_failure", message: "gateway rejected write (legacy_failure): chat not found" });
    expect(records.find((r) => r.msg === "gateway rejected write")).toMatchObject({ code: "legacy_failure" });
  });

  it("fails, without retrying, a send whose outcome is unknown", async () => {
    const { connector, frames, records } = await connect({ ack: () => ({ outcome: "unknown", error_code: "disconnect" }) });
    await connected(connector);
    await expect(connector.send(message, { wantAck: true })).rejects.toMatchObject({ code: "disconnect" });
    expect(frames).toHaveLength(1);
    expect(records.some((r) => r.msg === "gateway write outcome unknown; not retrying")).toBe(true);
  });

  it("requires acks when the hello negotiates send_ack: a missing ack fails the send", async () => {
    const { connector, records } = await connect({ ack: false, hello: { capabilities: { telegram: { send_ack: true } } } });
    await connected(connector);
    await until(() => records.some((r) => r.msg === "gateway capabilities negotiated"), 5_000);
    await expect(connector.send(message, { wantAck: false })).rejects.toMatchObject({ code: "ack_timeout", message: "required gateway ACK timed out" });
  });

  it("cannot ask a negotiated gateway without send_ack for acks: sends without request_id, warns once", async () => {
    const { connector, frames, records } = await connect({ hello: { capabilities: { telegram: { send_ack: false } } } });
    await connected(connector);
    await until(() => records.some((r) => r.msg === "gateway capabilities negotiated"), 5_000);
    expect(await connector.send(message, { wantAck: true })).toEqual({ messageId: "gw_sent" });
    expect(await connector.send(message, { wantAck: true })).toEqual({ messageId: "gw_sent" });
    await until(() => frames.length === 2, 5_000);
    expect(frames.map((f) => f.request_id)).toEqual([undefined, undefined]);
    expect(records.filter((r) => r.msg === "gateway does not ack sends; bubble order relies on the socket")).toHaveLength(1);
  });

  describe("edits and deletes (streaming)", () => {
    const edit: OutboundMessage = { ...message, reply_to: "gw-0001", content: { type: "text", text: "more" }, command: "edit_message" };
    const remove: OutboundMessage = { ...message, reply_to: "gw-0001", content: { type: "text", text: "" }, command: "delete_message" };
    const negotiated = async (telegram: Record<string, unknown>, options: DevGatewayOptions = {}) => {
      const setup = await connect({ ...options, hello: { capabilities: { telegram: { send_ack: true, ...telegram } } } });
      await connected(setup.connector);
      await until(() => setup.records.some((r) => r.msg === "gateway capabilities negotiated"), 5_000);
      return setup;
    };

    it("legacy: written without a request_id, as upstream (no ack is waited for), even when acks are wanted", async () => {
      const { connector, frames } = await connect();
      await connected(connector);
      expect(await connector.send(edit, { wantAck: true })).toEqual({ messageId: "gw_sent" });
      expect(await connector.send(remove, { wantAck: true })).toEqual({ messageId: "gw_sent" });
      await until(() => frames.length === 2, 5_000);
      expect(frames.map((f) => [f.command, f.request_id])).toEqual([
        ["edit_message", undefined],
        ["delete_message", undefined],
      ]);
    });

    it("after a hello: acked where edit_ack / delete_ack say so, and a refused edit fails", async () => {
      const { connector, frames } = await negotiated(
        { can_edit: true, can_delete: true, edit_ack: true, delete_ack: false },
        { ack: (frame) => (frame.content.text === "refused" ? { success: false, outcome: "rejected", error_code: "too_old", error: "message too old" } : {}) },
      );
      await connector.send(edit, { wantAck: false });
      await connector.send(remove, { wantAck: false });
      await until(() => frames.length === 2, 5_000);
      expect(frames[0]?.request_id).toMatch(/^req_/);
      expect(frames[1]?.request_id).toBeUndefined();
      await expect(connector.send({ ...edit, content: { type: "text", text: "refused" } }, { wantAck: false })).rejects.toBeInstanceOf(SendError);
    });

    it("after a hello without can_edit / can_delete: refused at once as unsupported, nothing written", async () => {
      const { connector, frames } = await negotiated({ can_edit: false, can_delete: false });
      await expect(connector.send(edit, { wantAck: true })).rejects.toMatchObject({ name: "SendError", code: "unsupported", message: "the platform cannot edit messages" });
      await expect(connector.send(remove, { wantAck: true })).rejects.toMatchObject({ code: "unsupported", message: "the platform cannot delete messages" });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(frames).toEqual([]);
    });
  });

  it("stays in legacy mode on a hello for another protocol version", async () => {
    const { connector, records } = await connect({ hello: { protocol_version: 2, capabilities: {} } });
    await connected(connector);
    await until(() => records.some((r) => r.msg.includes("continuing in legacy mode")), 5_000);
    expect(records.find((r) => r.msg === "gateway hello version is unsupported; continuing in legacy mode")).toMatchObject({ protocol_version: 2 });
    expect(connector.capabilities("telegram")).toBeUndefined();
    expect(connector.messageLimit("telegram")).toBe(4096);
  });

  it("refuses to send while disconnected", async () => {
    const { connector } = await connect();
    await connected(connector);
    await connector.close();
    await expect(connector.send(message, { wantAck: false })).rejects.toMatchObject({ code: "disconnected" });
  });

  it("connects with the token and keeps retrying with backoff when the gateway answers 401", async () => {
    const good = await connect({ token: "s3cret" }, "s3cret");
    expect(await connected(good.connector)).toBe(true);
    const bad = await connect({ token: "s3cret" }, "wrong");
    await until(() => bad.records.filter((r) => r.msg === "gateway connection failed, retrying").length >= 3, 10_000);
    expect(bad.connector.isConnected).toBe(false);
    const waits = bad.records.filter((r) => r.msg === "gateway connection failed, retrying").map((r) => r.backoffMs);
    expect(waits.slice(0, 3)).toEqual([50, 100, 200]);
  });

  it("uses a ?token= written into gateway.url as it is, and logs that URL with the token masked", async () => {
    const token = "url-t0ken-5e1b";
    const { connector, gateway, records } = await connect({ token }, undefined, (gw) => `${gw.url}?token=${token}`);
    expect(await connected(connector)).toBe(true);
    await until(() => records.some((r) => r.msg === "connected to gateway"), 5_000);
    const line = records.find((r) => r.msg === "connected to gateway");
    expect(line?.url).toBe(`${gateway.url}?token=***`);
    expect(JSON.stringify(records)).not.toContain(token);
    expect(records.some((r) => r.msg === "gateway.token not set — WebSocket connection is NOT authenticated")).toBe(false);
  });
});

describe("frames over max_frame_bytes", () => {
  const audio = (bytes: number) => ({ type: "audio", filename: "v.ogg", mime_type: "audio/ogg", data: Buffer.alloc(bytes).toString("base64"), size: bytes });
  const frameLimits = { maxFrameBytes: 16 * 1024, frameCeilingBytes: 256 * 1024 };

  it("below the ceiling: read whole, the event emitted without its inline attachment, the connection kept", async () => {
    const { connector, gateway, records } = await connect({}, undefined, undefined, frameLimits);
    const events: GatewayEvent[] = [];
    connector.events.subscribe((event) => events.push(event));
    await connected(connector);
    gateway.broadcast(userEvent("hear this", { content: { type: "text", text: "hear this", attachments: [audio(100_000)] } }));
    gateway.broadcast(userEvent("next"));
    expect(await until(() => events.length === 2, 10_000)).toBe(true);
    expect(events[0]?.content.text).toBe("hear this");
    expect(events[0]?.content.attachments?.[0]).toMatchObject({ data: "", size: 100_000, status: FRAME_TOO_LARGE_STATUS });
    expect(events[1]?.content.text).toBe("next");
    expect(records.find((r) => r.reason === "frame_too_large")).toMatchObject({ msg: "gateway frame over max_frame_bytes; its inline attachments not delivered", attachments: 1, maxFrameBytes: 16 * 1024 });
    expect(records.filter((r) => r.msg === "connected to gateway")).toHaveLength(1);
  });

  it("over the ceiling: ws must close the connection; the reason is logged and the connector is back for the next event", async () => {
    const { connector, gateway, records } = await connect({}, undefined, undefined, frameLimits);
    const events: GatewayEvent[] = [];
    connector.events.subscribe((event) => events.push(event));
    await connected(connector);
    gateway.broadcast(userEvent("huge", { content: { type: "text", text: "huge", attachments: [audio(300 * 1024)] } }));
    expect(await until(() => records.filter((r) => r.msg === "connected to gateway").length === 2 && gateway.brokerCount === 1, 10_000)).toBe(true);
    expect(records.find((r) => r.reason === "frame_over_ceiling")).toMatchObject({ msg: "gateway frame over the connector's ceiling; reconnecting", ceilingBytes: 256 * 1024 });
    gateway.broadcast(userEvent("after"));
    expect(await until(() => events.length === 1, 10_000)).toBe(true);
    expect(events[0]?.content.text).toBe("after");
  });
});

describe("text frames that are not UTF-8", () => {
  it("are dropped one by one as not_utf8 and counted invalid: the connection stays, the next event comes through", async () => {
    const { instruments, calls } = recordingInstruments();
    const { connector, gateway, records } = await connect({}, undefined, undefined, { instruments });
    const events: GatewayEvent[] = [];
    connector.events.subscribe((event) => events.push(event));
    await connected(connector);
    // A valid event with one byte of its text made a lone continuation byte, and bytes no UTF-8 holds at all.
    const valid = Buffer.from(JSON.stringify(userEvent("caf\u00e9")));
    const broken = Buffer.from(valid);
    broken[broken.indexOf(0xa9)] = 0xff;
    gateway.broadcast(broken);
    gateway.broadcast(Buffer.from([0xc0, 0xaf, 0xed, 0xa0, 0x80]));
    gateway.broadcast(userEvent("after"));
    expect(await until(() => events.length === 1, 10_000)).toBe(true);
    expect(events[0]?.content.text).toBe("after");
    const dropped = records.filter((r) => r.msg === "gateway frame dropped");
    expect(dropped.map((r) => [r.reason, r.bytes])).toEqual([["not_utf8", broken.length], ["not_utf8", 5]]);
    expect(JSON.stringify(dropped)).not.toContain("caf");
    expect(calls.filter(([method]) => method === "events")).toEqual([["events", "invalid"], ["events", "invalid"]]);
    expect(records.filter((r) => r.msg === "connected to gateway")).toHaveLength(1);
    expect(records.filter((r) => r.msg === "gateway disconnected")).toEqual([]);
    expect(gateway.brokerCount).toBe(1);
  });
});

describe("reply frames", () => {
  it("are byte-compatible with OpenAB: key order, optional keys omitted", () => {
    expect(replyFrame(message, "req_1")).toBe(
      '{"schema":"openab.gateway.reply.v1","reply_to":"evt-1","platform":"telegram","channel":{"id":"chat-1"},"content":{"type":"text","text":"on it"},"request_id":"req_1"}',
    );
    expect(replyFrame({ ...message, channel: { id: "c", thread_id: "t" }, quote_message_id: "m1" }, undefined)).toBe(
      '{"schema":"openab.gateway.reply.v1","reply_to":"evt-1","platform":"telegram","channel":{"id":"c","thread_id":"t"},"content":{"type":"text","text":"on it"},"quote_message_id":"m1"}',
    );
  });

  it("carry the token as ?token= or &token=", () => {
    expect(gatewayUrl("ws://h:8080/ws", "t")).toBe("ws://h:8080/ws?token=t");
    expect(gatewayUrl("ws://h:8080/ws?x=1", "t")).toBe("ws://h:8080/ws?x=1&token=t");
    expect(gatewayUrl("ws://h:8080/ws", undefined)).toBe("ws://h:8080/ws");
  });
});
