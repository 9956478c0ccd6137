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
});
