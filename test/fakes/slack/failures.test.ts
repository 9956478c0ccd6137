import { describe, expect, it } from "vitest";
import { ErrorCode, LogLevel, WebAPIHTTPError, WebAPIRateLimitedError, WebClient, WebClientEvent } from "@slack/web-api";
import { refusal, someConversations, useFakeSlack } from "./slackFixture.js";

/**
 * What the adapter will see from WebClient 8.2.0 when Slack rate-limits or fails:
 * - HTTP 429 + Retry-After, default options: WebClient pauses its queue for Retry-After seconds, then
 *   p-retry retries under `retryConfig` (default ten retries over ~30 min, adding its own 1–2 s backoff);
 *   the caller sees only the eventual answer, and the `rate_limited` event.
 * - With `rejectRateLimitedCalls: true`: a WebAPIRateLimitedError with `retryAfter` (seconds), no retry —
 *   what a shaper that honours Retry-After itself should ask for.
 * - A non-200, non-429 status: WebAPIHTTPError, which p-retry also retries under `retryConfig`.
 * - `{ok:false}` at HTTP 200: WebAPIPlatformError with `data.error`, never retried.
 */
describe("fake Slack Web API: rate limits and injected failures, as WebClient meets them", () => {
  const slack = useFakeSlack();

  it("answers 429 with Retry-After; WebClient waits it out and retries by itself", async () => {
    const { fake } = slack;
    const { general } = someConversations(fake);
    const web = new WebClient(fake.botToken, { slackApiUrl: fake.apiUrl, logLevel: LogLevel.ERROR, retryConfig: { retries: 1, minTimeout: 0, maxTimeout: 0 } });
    const limited: number[] = [];
    web.on(WebClientEvent.RATE_LIMITED, (seconds: number) => limited.push(seconds));
    fake.failNext("chat.postMessage", { retryAfter: 1 });
    const started = Date.now();
    await expect(web.chat.postMessage({ channel: general.id, text: "patient" })).resolves.toMatchObject({ ok: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(limited).toEqual([1]);
    expect(fake.callsOf("chat.postMessage").map((call) => [call.httpStatus, call.error])).toEqual([
      [429, "ratelimited"],
      [200, undefined],
    ]);
    expect(fake.botTexts(general.id)).toEqual(["patient"]);
  });

  it("with rejectRateLimitedCalls the 429 reaches the caller as WebAPIRateLimitedError with retryAfter, unretried", async () => {
    const { fake } = slack;
    const { general } = someConversations(fake);
    const web = new WebClient(fake.botToken, { slackApiUrl: fake.apiUrl, logLevel: LogLevel.ERROR, rejectRateLimitedCalls: true });
    fake.failNext("chat.update", { retryAfter: 7 });
    const posted = await web.chat.postMessage({ channel: general.id, text: "v1" });
    const error = await web.chat.update({ channel: general.id, ts: posted.ts!, text: "v2" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WebAPIRateLimitedError);
    expect(error).toMatchObject({ code: ErrorCode.RateLimitedError, retryAfter: 7 });
    expect(fake.callsOf("chat.update")).toHaveLength(1);
    const raw = await fetch(`${fake.apiUrl}chat.update`, { method: "POST", headers: { authorization: `Bearer ${fake.botToken}` } });
    expect(raw.status).toBe(200);
    fake.failNext("auth.test", { retryAfter: 3 });
    const limited = await fetch(`${fake.apiUrl}auth.test`, { method: "POST", headers: { authorization: `Bearer ${fake.botToken}` } });
    expect([limited.status, limited.headers.get("retry-after"), await limited.json()]).toEqual([429, "3", { ok: false, error: "ratelimited" }]);
  });

  it("failNext answers {ok:false} with any code, a count of times, and only for the method named", async () => {
    const { fake, web } = slack;
    const { general } = someConversations(fake);
    fake.failNext("chat.postMessage", { error: "internal_error" }, 2);
    expect(await refusal(web.chat.postMessage({ channel: general.id, text: "a" }))).toBe("internal_error");
    await expect(web.auth.test()).resolves.toMatchObject({ ok: true });
    expect(await refusal(web.chat.postMessage({ channel: general.id, text: "b" }))).toBe("internal_error");
    await expect(web.chat.postMessage({ channel: general.id, text: "c" })).resolves.toMatchObject({ ok: true });
    expect(fake.botTexts(general.id)).toEqual(["c"]);
  });

  it("an outage (HTTP 503) is a WebAPIHTTPError, which WebClient's retryConfig retries", async () => {
    const { fake, web } = slack;
    const { general } = someConversations(fake);
    fake.failNext("chat.postMessage", { httpStatus: 503 });
    const error = await web.chat.postMessage({ channel: general.id, text: "down" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WebAPIHTTPError);
    expect(error).toMatchObject({ statusCode: 503 });
    const retrying = new WebClient(fake.botToken, { slackApiUrl: fake.apiUrl, logLevel: LogLevel.ERROR, retryConfig: { retries: 2, minTimeout: 0, maxTimeout: 0 } });
    fake.failNext("chat.postMessage", { httpStatus: 503 }, 2);
    await expect(retrying.chat.postMessage({ channel: general.id, text: "up again" })).resolves.toMatchObject({ ok: true });
    expect(fake.callsOf("chat.postMessage").map((call) => call.httpStatus)).toEqual([503, 503, 503, 200]);
  });

  it("delays answers of one method, or of every method with '*'", async () => {
    const { fake, web } = slack;
    fake.delay("auth.test", 300);
    const started = Date.now();
    await web.auth.test();
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    fake.delay("auth.test", 0);
    fake.delay("*", 200);
    const slow = Date.now();
    await web.auth.test();
    expect(Date.now() - slow).toBeGreaterThanOrEqual(190);
  });
});
