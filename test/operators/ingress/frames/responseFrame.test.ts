import { describe, expect, it } from "vitest";
import { parseGatewayFrame } from "../../../../operators/ingress/frames/gatewayFrames.js";
import { type GatewayResponse, responseOutcome } from "../../../../operators/ingress/frames/responseFrame.js";

const response = (fields: Partial<GatewayResponse>): GatewayResponse => ({
  schema: "openab.gateway.response.v1",
  request_id: "req_1",
  success: false,
  ...fields,
});

function parseResponse(frame: string): GatewayResponse {
  const parsed = parseGatewayFrame(frame, 1 << 20);
  if (parsed.kind !== "response") throw new Error(`not a response: ${parsed.kind}`);
  return parsed.response;
}

describe("response.v1 parsing", () => {
  it("bounds and cleans the gateway's error (500 chars) and error_code (64): they reach logs and callers", () => {
    const hostile = "\u001b[31mno\u001b[0m\u0000 chat\r\n".repeat(20_000); // 440,000 chars, ~700 KB as JSON
    const parsed = parseResponse(JSON.stringify({ schema: "openab.gateway.response.v1", request_id: "r", outcome: "rejected", error: hostile, error_code: `gone\u0007${"x".repeat(200)}` }));
    expect(parsed.error?.length).toBeLessThanOrEqual(500);
    expect(parsed.error).toMatch(/^no chat no chat .*…\(\+[\d,]+ chars\)$/);
    expect(parsed.error_code?.length).toBeLessThanOrEqual(64);
    expect(parsed.error_code?.startsWith("gonexxx")).toBe(true);
    expect(parseResponse('{"schema":"openab.gateway.response.v1","request_id":"r","error":"chat not found","error_code":"chat_gone"}')).toMatchObject({
      error: "chat not found",
      error_code: "chat_gone",
    });
  });

  it("parses the legacy §5.1 example, reading nulls as absent", () => {
    const frame =
      '{"schema": "openab.gateway.response.v1", "request_id": "req_9f0c2d1e-4b5a-4c3d-8e7f-0a1b2c3d4e5f", "success": true, "message_id": "gw-ab12cd", "thread_id": null, "error": null}';
    expect(parseResponse(frame)).toStrictEqual({
      schema: "openab.gateway.response.v1",
      request_id: "req_9f0c2d1e-4b5a-4c3d-8e7f-0a1b2c3d4e5f",
      success: true,
      message_id: "gw-ab12cd",
    });
  });

  it("parses the structured §5.1 examples and drops unknown fields", () => {
    expect(
      parseResponse(
        '{"schema":"openab.gateway.response.v1","request_id":"req_a","success":true,"outcome":"delivered","message_id":"1234","attachment":{"id":"x"}}',
      ),
    ).toStrictEqual({ schema: "openab.gateway.response.v1", request_id: "req_a", success: true, outcome: "delivered", message_id: "1234" });
    expect(
      parseResponse(
        '{"schema":"openab.gateway.response.v1","request_id":"req_b","success":false,"outcome":"rejected","error_code":"fixture_rejected","error":"fixture rejection","retry_after_ms":1500}',
      ),
    ).toStrictEqual({
      schema: "openab.gateway.response.v1",
      request_id: "req_b",
      success: false,
      outcome: "rejected",
      error_code: "fixture_rejected",
      error: "fixture rejection",
      retry_after_ms: 1500,
    });
  });

  it("keeps thread_id for create_topic and defaults a missing success flag to false", () => {
    expect(parseResponse('{"schema":"openab.gateway.response.v1","request_id":"r","thread_id":"77"}')).toStrictEqual({
      schema: "openab.gateway.response.v1",
      request_id: "r",
      success: false,
      thread_id: "77",
    });
  });
});

describe("responseOutcome (§5.5)", () => {
  it("outcome delivered → Delivered(message_id)", () => {
    expect(responseOutcome(response({ outcome: "delivered", success: true, message_id: "1234" }))).toStrictEqual({
      kind: "delivered",
      messageId: "1234",
    });
  });

  it("outcome delivered without (or with an empty) message_id → Delivered without one", () => {
    expect(responseOutcome(response({ outcome: "delivered" }))).toStrictEqual({ kind: "delivered" });
    expect(responseOutcome(response({ outcome: "delivered", message_id: "" }))).toStrictEqual({ kind: "delivered" });
  });

  it("a delivered create_topic keeps the gateway's thread_id, legacy or structured; an empty one is absent", () => {
    const base = { schema: "openab.gateway.response.v1", request_id: "r1", success: true } as const;
    expect(responseOutcome({ ...base, thread_id: "t9" })).toEqual({ kind: "delivered", threadId: "t9" });
    expect(responseOutcome({ ...base, outcome: "delivered", message_id: "m1", thread_id: "t9" })).toEqual({ kind: "delivered", messageId: "m1", threadId: "t9" });
    expect(responseOutcome({ ...base, thread_id: "" })).toEqual({ kind: "delivered" });
  });

  it("outcome rejected → Rejected(error_code, error, retry_after_ms)", () => {
    expect(
      responseOutcome(response({ outcome: "rejected", error_code: "rate_limited", error: "slow down", retry_after_ms: 2000 })),
    ).toStrictEqual({ kind: "rejected", code: "rate_limited", message: "slow down", retryAfterMs: 2000 });
  });

  it("outcome rejected with nothing else → the default code and message, no retryAfterMs", () => {
    expect(responseOutcome(response({ outcome: "rejected" }))).toStrictEqual({
      kind: "rejected",
      code: "rejected",
      message: "gateway rejected write",
    });
  });

  it("outcome unknown → Unknown(error_code, error), with defaults", () => {
    expect(responseOutcome(response({ outcome: "unknown", error_code: "timeout", error: "POST timed out" }))).toStrictEqual({
      kind: "unknown",
      code: "timeout",
      message: "POST timed out",
    });
    expect(responseOutcome(response({ outcome: "unknown", retry_after_ms: 5 }))).toStrictEqual({
      kind: "unknown",
      code: "unknown",
      message: "gateway write outcome is unknown",
    });
  });

  it("an outcome value the table does not know is Unknown (never retried)", () => {
    expect(responseOutcome(response({ outcome: "partial", success: true }))).toStrictEqual({
      kind: "unknown",
      code: "unknown",
      message: "gateway write outcome is unknown",
    });
  });

  it("no outcome, success true → Delivered(message_id)", () => {
    expect(responseOutcome(response({ success: true, message_id: "gw-ab12cd" }))).toStrictEqual({
      kind: "delivered",
      messageId: "gw-ab12cd",
    });
    expect(responseOutcome(response({ success: true }))).toStrictEqual({ kind: "delivered" });
  });

  it("no outcome, success false → Rejected(legacy_failure, error)", () => {
    expect(responseOutcome(response({ success: false, error: "chat not found", error_code: "ignored" }))).toStrictEqual({
      kind: "rejected",
      code: "legacy_failure",
      message: "chat not found",
    });
    expect(responseOutcome(response({ success: false }))).toStrictEqual({
      kind: "rejected",
      code: "legacy_failure",
      message: "gateway reported failure",
    });
  });

  it("the outcome wins over the legacy flag", () => {
    expect(responseOutcome(response({ success: true, outcome: "rejected" }))).toMatchObject({ kind: "rejected" });
    expect(responseOutcome(response({ success: false, outcome: "delivered" }))).toStrictEqual({ kind: "delivered" });
  });
});
