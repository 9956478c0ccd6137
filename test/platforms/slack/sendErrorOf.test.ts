import { describe, expect, it } from "vitest";
import { WebAPIHTTPError, WebAPIPlatformError, WebAPIRateLimitedError, WebAPIRequestError } from "@slack/web-api";
import { sendErrorOf } from "../../../src/platforms/slack/sendErrorOf.js";
import { isTokenRejected, slackApiFailure } from "../../../src/platforms/slack/slackApiFailure.js";

const of = (err: unknown) => sendErrorOf("chat.postMessage", slackApiFailure(err), err);
const platform = (error: string) => new WebAPIPlatformError({ ok: false, error });
const network = (code: string) => new WebAPIRequestError(Object.assign(new TypeError("fetch failed"), { cause: { code } }));

describe("sendErrorOf", () => {
  it("rate limits are retried after Retry-After (in ms), or a second without one", () => {
    expect([of(new WebAPIRateLimitedError(7)).code, of(new WebAPIRateLimitedError(7)).retryAfterMs]).toEqual(["rate_limited", 7000]);
    expect([of(platform("ratelimited")).code, of(platform("ratelimited")).retryAfterMs]).toEqual(["rate_limited", 1000]);
  });

  it("Slack's refusals are rejected, except those after which the call may have been done", () => {
    expect(of(platform("msg_too_long")).code).toBe("rejected");
    for (const error of ["internal_error", "fatal_error", "service_unavailable", "request_timeout"]) expect(of(platform(error)).code, error).toBe("unknown");
  });

  it("HTTP: 5xx unknown, 4xx rejected; the network: a lost answer unknown, never connected disconnected", () => {
    expect(of(new WebAPIHTTPError(503, "Service Unavailable", {})).code).toBe("unknown");
    expect(of(new WebAPIHTTPError(404, "Not Found", {})).code).toBe("rejected");
    expect(of(network("ECONNRESET")).code).toBe("unknown");
    expect(of(network("ECONNREFUSED")).code).toBe("disconnected");
    expect(of(new WebAPIRequestError(new DOMException("timed out", "TimeoutError"))).code).toBe("unknown");
  });

  it("a file too big for the workspace, or a 413 from the upload URL, is file_too_large", () => {
    expect(of(platform("file_upload_size_restricted")).code).toBe("file_too_large");
    expect(of(new WebAPIHTTPError(413, "Payload Too Large", {})).code).toBe("file_too_large");
  });

  it("names the errors that say the token is no good", () => {
    expect(isTokenRejected(slackApiFailure(platform("invalid_auth")))).toBe(true);
    expect(isTokenRejected(slackApiFailure(platform("channel_not_found")))).toBe(false);
  });
});
