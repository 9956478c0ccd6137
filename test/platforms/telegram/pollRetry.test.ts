import { describe, expect, it } from "vitest";
import { confirmableOffset, pollRetry } from "../../../src/platforms/telegram/pollRetry.js";

const refused = (status: number, description = "x", retryAfterMs?: number) => ({ kind: "refused" as const, status, description, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
const network = { kind: "network" as const, code: "ECONNRESET", connected: true };

describe("pollRetry", () => {
  it("doubles from 1 s to 30 s for the network, a 5xx and a 409", () => {
    expect([1, 2, 3, 5, 6, 7, 40].map((n) => pollRetry(network, n).delayMs)).toEqual([1_000, 2_000, 4_000, 16_000, 30_000, 30_000, 30_000]);
    expect(pollRetry(refused(502, "Bad Gateway"), 2)).toEqual({ reason: "server_error", delayMs: 2_000 });
    expect(pollRetry(refused(409, "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"), 1)).toEqual({ reason: "conflict", delayMs: 1_000 });
    expect(pollRetry(refused(409, "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"), 3)).toEqual({ reason: "webhook_active", delayMs: 4_000 });
  });

  it("waits Telegram's retry_after on a 429, and a minute on a rejected token", () => {
    expect(pollRetry(refused(429, "Too Many Requests: retry after 7", 7_000), 1)).toEqual({ reason: "rate_limited", delayMs: 7_000 });
    expect(pollRetry(refused(429, "Too Many Requests"), 4)).toEqual({ reason: "rate_limited", delayMs: 1_000 });
    expect(pollRetry(refused(401, "Unauthorized"), 9)).toEqual({ reason: "unauthorized", delayMs: 60_000 });
    expect(pollRetry(refused(400, "Bad Request: wrong offset"), 1)).toEqual({ reason: "refused", delayMs: 1_000 });
  });
});

describe("confirmableOffset", () => {
  it("is past the last update when all settled, else the first one not settled", () => {
    expect(confirmableOffset([10, 11, 12], new Set([10, 11, 12]))).toBe(13);
    expect(confirmableOffset([10, 11, 12], new Set([10, 12]))).toBe(11);
    expect(confirmableOffset([10, 11, 12], new Set())).toBe(10);
    expect(confirmableOffset([], new Set())).toBeUndefined();
  });
});
