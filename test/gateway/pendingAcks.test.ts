import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { GatewayResponse } from "../../operators/ingress/frames/responseFrame.js";
import { ackResult, legacySent, PendingAcks, RATE_LIMITED_RETRY_MS } from "../../src/gateway/pendingAcks.js";
import { SendError } from "../../src/wire/index.js";
import { captureLogs } from "../helpers/logCapture.js";

const response = (requestId: string, fields: Partial<GatewayResponse> = {}): GatewayResponse => ({
  schema: "openab.gateway.response.v1",
  request_id: requestId,
  success: true,
  ...fields,
});

/** How a promise settled so far, readable without awaiting it. */
function watch<T>(promise: Promise<T>): { settled: boolean; value?: T; error?: unknown } {
  const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  promise.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error: unknown) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function acks() {
  const { logger, records } = captureLogs();
  return { pending: new PendingAcks(logger), records };
}

describe("PendingAcks", () => {
  it("resolves a send with the message id its ack carries, and forgets it and its timer", async () => {
    const { pending, records } = acks();
    const sent = pending.wait("req_1", true, 5_000);
    expect(pending.size).toBe(1);
    pending.acknowledge(response("req_1", { message_id: "m-1" }));
    expect(await sent).toEqual({ messageId: "m-1" });
    expect(pending.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    expect(records).toEqual([]);
  });

  it("ignores an ack nobody waits for (another core's), leaving the waiting send alone", async () => {
    const { pending, records } = acks();
    const sent = watch(pending.wait("req_1", false, 5_000));
    pending.acknowledge(response("req_other", { message_id: "m-9" }));
    await vi.advanceTimersByTimeAsync(0);
    expect(sent.settled).toBe(false);
    expect(pending.size).toBe(1);
    expect(records).toEqual([]);
  });

  it("fails a rejected write with its code and logs it with reason rejected", async () => {
    const { pending, records } = acks();
    const sent = pending.wait("req_1", false, 5_000);
    pending.acknowledge(response("req_1", { success: false, error: "chat not found" }));
    await expect(sent).rejects.toMatchObject({ name: "SendError", code: "legacy_failure", message: "gateway rejected write (legacy_failure): chat not found" });
    expect(records).toMatchObject([{ msg: "gateway rejected write", reason: "rejected", code: "legacy_failure" }]);
  });

  it("fails a write whose outcome is unknown and logs it with reason unknown_outcome", async () => {
    const { pending, records } = acks();
    const sent = pending.wait("req_1", true, 5_000);
    pending.acknowledge(response("req_1", { outcome: "unknown", error_code: "upstream_timeout", error: "no answer" }));
    await expect(sent).rejects.toMatchObject({ code: "upstream_timeout", message: "gateway write outcome unknown (upstream_timeout): no answer" });
    expect(records).toMatchObject([{ msg: "gateway write outcome unknown; not retrying", reason: "unknown_outcome", code: "upstream_timeout" }]);
  });

  it("counts a legacy send as sent, with a warning, exactly when its ack timeout passes; a late ack is ignored", async () => {
    const { pending, records } = acks();
    const sent = watch(pending.wait("req_1", false, 200));
    await vi.advanceTimersByTimeAsync(199);
    expect(sent.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent).toEqual({ settled: true, value: legacySent });
    expect(records).toMatchObject([{ msg: "legacy gateway reply timed out", reason: "ack_timeout" }]);
    pending.acknowledge(response("req_1", { message_id: "m-late" }));
    expect(pending.size).toBe(0);
  });

  it("fails a required send with ack_timeout exactly when its ack timeout passes, without a warning", async () => {
    const { pending, records } = acks();
    const sent = watch(pending.wait("req_1", true, 300));
    await vi.advanceTimersByTimeAsync(299);
    expect(sent.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent.error).toBeInstanceOf(SendError);
    expect(sent.error).toMatchObject({ code: "ack_timeout", message: "required gateway ACK timed out" });
    expect(records).toEqual([]);
  });

  it("fails a send whose frame could not be written with write_failed, keeping the cause; once settled it stays so", async () => {
    const { pending } = acks();
    const sent = pending.wait("req_1", false, 5_000);
    const cause = new Error("EPIPE");
    pending.writeFailed("req_1", cause);
    await expect(sent).rejects.toMatchObject({ code: "write_failed", message: "writing to the gateway failed", cause });
    expect(vi.getTimerCount()).toBe(0);
    pending.writeFailed("req_1", cause);
    pending.acknowledge(response("req_1", { message_id: "m-1" }));
    expect(pending.size).toBe(0);
  });

  it("on a closed connection: a legacy send counts as sent with a warning, a required one fails with ack_channel_closed", async () => {
    const { pending, records } = acks();
    const legacy = pending.wait("req_1", false, 5_000);
    const required = pending.wait("req_2", true, 5_000);
    pending.connectionClosed(false);
    expect(await legacy).toEqual(legacySent);
    await expect(required).rejects.toMatchObject({ code: "ack_channel_closed", message: "required gateway ACK channel closed" });
    expect(records).toMatchObject([{ msg: "legacy gateway reply timed out", reason: "ack_channel_closed" }]);
    expect(pending.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("on a connection the keepalive abandoned: every waiting send fails with connection_lost, legacy ones too", async () => {
    const { pending, records } = acks();
    const legacy = pending.wait("req_1", false, 5_000);
    const required = pending.wait("req_2", true, 5_000);
    pending.connectionClosed(true);
    const lost = { code: "connection_lost", message: "the gateway connection was lost (no keepalive pong)" };
    await expect(legacy).rejects.toMatchObject(lost);
    await expect(required).rejects.toMatchObject(lost);
    expect(records).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("ackResult", () => {
  it("a delivered write is its message id; without one, counted as sent in legacy mode and failed when required", () => {
    expect(ackResult({ kind: "delivered", messageId: "m-1" }, true)).toEqual({ messageId: "m-1" });
    expect(ackResult({ kind: "delivered" }, false)).toBe(legacySent);
    expect(ackResult({ kind: "delivered", messageId: "" }, false)).toBe(legacySent);
    expect(ackResult({ kind: "delivered" }, true)).toMatchObject({ name: "SendError", code: "no_message_id", message: "gateway delivered send without a message id" });
  });

  it("a create_topic's thread_id is the receipt's thread (and its message id when the gateway gave none)", () => {
    expect(ackResult({ kind: "delivered", threadId: "t-1" }, true)).toEqual({ messageId: "t-1", threadId: "t-1" });
    expect(ackResult({ kind: "delivered", messageId: "m-1", threadId: "t-1" }, true)).toEqual({ messageId: "m-1", threadId: "t-1" });
  });

  it("a rejected or unknown outcome fails with its own code, in either mode", () => {
    for (const required of [false, true]) {
      expect(ackResult({ kind: "rejected", code: "rate_limited", message: "slow down" }, required)).toMatchObject({
        code: "rate_limited",
        message: "gateway rejected write (rate_limited): slow down",
      });
      expect(ackResult({ kind: "unknown", code: "unknown", message: "lost" }, required)).toMatchObject({
        code: "unknown",
        message: "gateway write outcome unknown (unknown): lost",
      });
    }
  });

  it("a rejection that says when to try again carries it: retry_after_ms as given, rate_limited without one waits 1 s; unknown never", () => {
    expect(ackResult({ kind: "rejected", code: "slow", message: "later", retryAfterMs: 1_500 }, true)).toMatchObject({ code: "slow", retryAfterMs: 1_500 });
    expect(ackResult({ kind: "rejected", code: "rate_limited", message: "later" }, true)).toMatchObject({ code: "rate_limited", retryAfterMs: RATE_LIMITED_RETRY_MS });
    expect(RATE_LIMITED_RETRY_MS).toBe(1_000);
    expect(ackResult({ kind: "rejected", code: "rejected", message: "no" }, true)).toMatchObject({ code: "rejected", retryAfterMs: undefined });
    // An unknown outcome may have been posted: it is never sent again, whatever its code says.
    expect(ackResult({ kind: "unknown", code: "rate_limited", message: "lost" }, true)).toMatchObject({ code: "rate_limited", retryAfterMs: undefined });
  });
});
