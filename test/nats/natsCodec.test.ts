import { headers } from "@nats-io/transport-node";
import { describe, expect, it } from "vitest";
import { decodePayload, encodePayload, fromMsgHdrs, persistHeaders, toMsgHdrs } from "../../src/bus/nats/natsCodec.js";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("payload codec", () => {
  it("round-trips JSON values; undefined travels as an empty payload", () => {
    for (const value of [{ a: [1, "x", null] }, "text", 0, null, true]) {
      expect(decodePayload(encodePayload(value))).toEqual({ ok: true, data: value });
    }
    expect(encodePayload(undefined)).toHaveLength(0);
    expect(decodePayload(new Uint8Array())).toEqual({ ok: true, data: undefined });
  });

  it("refuses what is not JSON, without throwing", () => {
    expect(decodePayload(bytes("{oops"))).toEqual({ ok: false, reason: "invalid_json" });
    expect(decodePayload(new Uint8Array([0xff, 0xfe]))).toEqual({ ok: false, reason: "invalid_json" });
  });
});

describe("header conversion", () => {
  it("sends no headers for none, and reads the first value per key, leaving out one key", () => {
    expect(toMsgHdrs(undefined)).toBeUndefined();
    expect(toMsgHdrs({})).toBeUndefined();
    const hdrs = toMsgHdrs({ "x-a": "1", "Nats-Msg-Id": "m" });
    hdrs?.append("x-a", "2");
    expect(fromMsgHdrs(hdrs, "Nats-Msg-Id")).toEqual({ "x-a": "1" });
    expect(fromMsgHdrs(undefined)).toEqual({});
    expect(fromMsgHdrs(headers())).toEqual({});
  });

  it("adds the dedupe id to an append's headers, and sends none for neither (an empty id as none, as js.publish did)", () => {
    expect(persistHeaders(undefined, undefined)).toBeUndefined();
    expect(persistHeaders({}, "")).toBeUndefined();
    expect(persistHeaders(undefined, "telegram:1")?.get("Nats-Msg-Id")).toBe("telegram:1");
    const both = persistHeaders({ "x-k": "v" }, "telegram:2");
    expect([both?.get("x-k"), both?.get("Nats-Msg-Id")]).toEqual(["v", "telegram:2"]);
  });
});
