import { GrammyError, HttpError } from "grammy";
import { describe, expect, it } from "vitest";
import { botApiFailure, isNotModified } from "../../../src/platforms/telegram/botApiFailure.js";
import { sendErrorOf } from "../../../src/platforms/telegram/sendErrorOf.js";

const refusedBy = (error_code: number, description: string, parameters: { retry_after?: number } = {}) =>
  new GrammyError("Call to 'sendMessage' failed!", { ok: false, error_code, description, parameters }, "sendMessage", { text: "hi" });
const lost = (cause: unknown) => new HttpError("Network request for 'sendMessage' failed!", cause);
const errorOf = (err: unknown) => sendErrorOf("sendMessage", botApiFailure(err), err);

describe("sendErrorOf: Bot API failures as the gateway's acks name them", () => {
  it("a 429 is rate_limited with Telegram's retry_after in ms (1 s when it names none)", () => {
    expect(errorOf(refusedBy(429, "Too Many Requests: retry after 2", { retry_after: 2 }))).toMatchObject({ code: "rate_limited", retryAfterMs: 2_000 });
    expect(errorOf(refusedBy(429, "Too Many Requests"))).toMatchObject({ code: "rate_limited", retryAfterMs: 1_000 });
  });

  it("another refusal is rejected with Telegram's words, never to be retried", () => {
    const tooLong = errorOf(refusedBy(400, "Bad Request: message is too long"));
    expect(tooLong).toMatchObject({ code: "rejected", retryAfterMs: undefined });
    expect(tooLong.message).toBe("Telegram refused sendMessage (400): Bad Request: message is too long");
    expect(errorOf(refusedBy(403, "Forbidden: bot was blocked by the user")).code).toBe("rejected");
  });

  it("a 5xx, or an answer lost once connected, is unknown: the message may be in the chat", () => {
    expect(errorOf(refusedBy(502, "Bad Gateway")).code).toBe("unknown");
    expect(errorOf(lost(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }))).code).toBe("unknown");
    expect(errorOf(lost(new Error("Request to 'sendMessage' timed out after 60 seconds"))).message).toContain("(timeout)");
    expect(errorOf(lost(Object.assign(new Error("aborted"), { name: "AbortError" }))).message).toContain("(aborted)");
  });

  it("an upload refused as too big is file_too_large (413, or 'file is too big'); the same words for a text stay rejected", () => {
    const upload = (method: string, err: unknown) => sendErrorOf(method, botApiFailure(err), err);
    expect(upload("sendDocument", refusedBy(413, "Request Entity Too Large"))).toMatchObject({ code: "file_too_large", retryAfterMs: undefined });
    expect(upload("sendPhoto", refusedBy(400, "Bad Request: file is too big")).code).toBe("file_too_large");
    expect(upload("sendDocument", refusedBy(413, "Request Entity Too Large")).message).toBe("Telegram refused sendDocument: the file is too big (413: Request Entity Too Large)");
    expect(upload("sendMessage", refusedBy(413, "Request Entity Too Large: too much parameters")).code).toBe("rejected");
    expect(upload("sendDocument", refusedBy(400, "Bad Request: chat not found")).code).toBe("rejected");
  });

  it("a connection that never opened is disconnected: nothing reached Telegram", () => {
    const refused = lost(Object.assign(new Error("request to http://127.0.0.1:1/bot123:abc/sendMessage failed, reason: connect ECONNREFUSED"), { code: "ECONNREFUSED" }));
    const error = errorOf(refused);
    expect(error.code).toBe("disconnected");
    // The URL carries the token: the message never repeats the cause's.
    expect(error.message).not.toContain("123:abc");
  });
});

describe("isNotModified", () => {
  it("is Telegram's answer to an edit that changes nothing", () => {
    expect(isNotModified(botApiFailure(refusedBy(400, "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message")))).toBe(true);
    expect(isNotModified(botApiFailure(refusedBy(400, "Bad Request: message to edit not found")))).toBe(false);
  });
});
