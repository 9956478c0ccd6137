import { describe, expect, it } from "vitest";
import { webhookRefusal, type WebhookRequest } from "../../../src/platforms/telegram/webhookGuard.js";

const config = { path: "/webhook/telegram", secretToken: "s3cret-token_1", trustedSourceOnly: false };
const request = (fields: Partial<WebhookRequest> = {}): WebhookRequest => ({
  method: "POST",
  url: "/webhook/telegram",
  headers: { "x-telegram-bot-api-secret-token": "s3cret-token_1" },
  peer: "127.0.0.1",
  ...fields,
});

describe("webhookRefusal", () => {
  it("lets a POST to the path with the right secret token through (a query is ignored)", () => {
    expect(webhookRefusal(request(), config)).toBeUndefined();
    expect(webhookRefusal(request({ url: "/webhook/telegram?x=1" }), config)).toBeUndefined();
  });

  it("refuses another path (404) and another method (405)", () => {
    expect(webhookRefusal(request({ url: "/webhook/telegram/" }), config)).toEqual({ status: 404, reason: "not_found" });
    expect(webhookRefusal(request({ method: "GET" }), config)).toEqual({ status: 405, reason: "method_not_allowed" });
  });

  it("refuses a missing or wrong secret token with 401, whatever its length", () => {
    expect(webhookRefusal(request({ headers: {} }), config)).toEqual({ status: 401, reason: "secret_token_missing" });
    expect(webhookRefusal(request({ headers: { "x-telegram-bot-api-secret-token": "" } }), config)).toEqual({ status: 401, reason: "secret_token_missing" });
    expect(webhookRefusal(request({ headers: { "x-telegram-bot-api-secret-token": "s3cret-token_2" } }), config)).toEqual({ status: 401, reason: "secret_token_wrong" });
    expect(webhookRefusal(request({ headers: { "x-telegram-bot-api-secret-token": "s3cret" } }), config)).toEqual({ status: 401, reason: "secret_token_wrong" });
    expect(webhookRefusal(request({ headers: {} }), { ...config, secretToken: undefined })).toBeUndefined();
  });

  it("with trusted_source_only, refuses a source outside Telegram's subnets with 403 before looking at the token", () => {
    const trusted = { ...config, trustedSourceOnly: true };
    expect(webhookRefusal(request({ headers: {} }), trusted)).toEqual({ status: 403, reason: "untrusted_source" });
    expect(webhookRefusal(request({ headers: { "x-telegram-bot-api-secret-token": "s3cret-token_1", "x-real-ip": "91.108.6.1" } }), trusted)).toBeUndefined();
    expect(webhookRefusal(request({ peer: "149.154.161.2" }), trusted)).toBeUndefined();
  });

  it("looks in order: the path, the method, the source, then the secret", () => {
    const trusted = { ...config, trustedSourceOnly: true };
    const stranger = request({ method: "GET", url: "/elsewhere", headers: {} });
    expect(webhookRefusal(stranger, trusted)).toMatchObject({ status: 404 });
    expect(webhookRefusal({ ...stranger, url: "/webhook/telegram" }, trusted)).toMatchObject({ status: 405 });
    expect(webhookRefusal({ ...stranger, url: "/webhook/telegram", method: "POST" }, trusted)).toMatchObject({ status: 403 });
    expect(webhookRefusal({ ...stranger, url: "/webhook/telegram", method: "POST", peer: "149.154.160.1" }, trusted)).toMatchObject({ status: 401 });
  });

  it("serves the path exactly: no other case, no missing target", () => {
    expect(webhookRefusal(request({ url: "/webhook/Telegram" }), config)).toEqual({ status: 404, reason: "not_found" });
    expect(webhookRefusal(request({ url: "/webhook/telegram/x" }), config)).toEqual({ status: 404, reason: "not_found" });
    expect(webhookRefusal(request({ url: undefined }), config)).toEqual({ status: 404, reason: "not_found" });
    expect(webhookRefusal(request({ method: undefined }), config)).toEqual({ status: 405, reason: "method_not_allowed" });
  });

  it("compares the secret exactly, whatever its length or characters, and never throws (both sides hashed before timingSafeEqual)", () => {
    const given = (secret: string) => webhookRefusal(request({ headers: { "x-telegram-bot-api-secret-token": secret } }), config);
    for (const wrong of ["S3cret-token_1", "s3cret-token_1 ", "s3cret-token_1, s3cret-token_1", "s3cret-token_1é", "é", "s".repeat(10_000), "s3cret-token_\u0000"]) {
      expect(given(wrong)).toEqual({ status: 401, reason: "secret_token_wrong" });
    }
    expect(given("s3cret-token_1")).toBeUndefined();
    // A secret of 256 characters (Telegram's longest) against one differing only in its last.
    const long = { ...config, secretToken: `${"a".repeat(255)}b` };
    expect(webhookRefusal(request({ headers: { "x-telegram-bot-api-secret-token": `${"a".repeat(255)}b` } }), long)).toBeUndefined();
    expect(webhookRefusal(request({ headers: { "x-telegram-bot-api-secret-token": "a".repeat(256) } }), long)).toEqual({ status: 401, reason: "secret_token_wrong" });
  });

  it("a repeated header (an array) is not the secret", () => {
    const headers = { "x-telegram-bot-api-secret-token": ["s3cret-token_1", "s3cret-token_1"] } as unknown as WebhookRequest["headers"];
    expect(webhookRefusal(request({ headers }), config)).toEqual({ status: 401, reason: "secret_token_missing" });
  });

  it("with trusted_source_only, reads the forwarded source before the peer, an IPv4-mapped peer too", () => {
    const trusted = { ...config, trustedSourceOnly: true };
    expect(webhookRefusal(request({ headers: { ...request().headers, "x-forwarded-for": "149.154.167.1, 10.0.0.1" } }), trusted)).toBeUndefined();
    expect(webhookRefusal(request({ headers: { ...request().headers, "cf-connecting-ip": "203.0.113.5", "x-real-ip": "149.154.167.1" } }), trusted)).toEqual({ status: 403, reason: "untrusted_source" });
    expect(webhookRefusal(request({ peer: "::ffff:91.108.4.1" }), trusted)).toBeUndefined();
    expect(webhookRefusal(request({ peer: "::1" }), trusted)).toEqual({ status: 403, reason: "untrusted_source" });
  });
});
