import { WebAPIHTTPError, WebAPIPlatformError, WebAPIRateLimitedError, WebAPIRequestError } from "@slack/web-api";

/**
 * A failed Web API call, as turnstream reads it: Slack's answer (`{ok:false, error}`, a 429 with
 * `Retry-After`, another HTTP status) or the network's (a system error code, a timeout). Safe to
 * log: never a token (WebClient sends it in a header) nor the call's arguments.
 */
export type SlackApiFailure =
  /** `{ok:false}`: Slack's error code (`channel_not_found`, `invalid_auth`, `internal_error`…). */
  | { readonly kind: "refused"; readonly error: string }
  | { readonly kind: "rate_limited"; readonly retryAfterMs: number }
  | { readonly kind: "http"; readonly status: number }
  /** No answer: `connected` says whether the request may have reached Slack (a reset, a timeout) or surely did not. */
  | { readonly kind: "network"; readonly code: string; readonly connected: boolean };

/** Connection failures before anything was sent: the call certainly did nothing. */
const NOT_CONNECTED: ReadonlySet<string> = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL", "UND_ERR_CONNECT_TIMEOUT"]);

export function slackApiFailure(err: unknown): SlackApiFailure {
  if (err instanceof WebAPIRateLimitedError) return { kind: "rate_limited", retryAfterMs: Math.max(0, err.retryAfter) * 1000 };
  if (err instanceof WebAPIPlatformError) return { kind: "refused", error: typeof err.data.error === "string" ? err.data.error : "unknown_error" };
  if (err instanceof WebAPIHTTPError) return { kind: "http", status: err.statusCode };
  const code = systemCode(err instanceof WebAPIRequestError ? err.original : err);
  return { kind: "network", code, connected: !NOT_CONNECTED.has(code) };
}

/** Slack's errors that say the bot token is no good: start-up stops on them, as on a 401 elsewhere. */
const TOKEN_REJECTED: ReadonlySet<string> = new Set(["invalid_auth", "not_authed", "token_revoked", "token_expired", "account_inactive", "not_allowed_token_type"]);

export function isTokenRejected(failure: SlackApiFailure): boolean {
  return failure.kind === "refused" && TOKEN_REJECTED.has(failure.error);
}

/** A short, stable description for a log field: Slack's error, the HTTP status, or the system code. */
export function failureDetail(failure: SlackApiFailure): Record<string, string | number> {
  switch (failure.kind) {
    case "refused":
      return { error: failure.error };
    case "rate_limited":
      return { retryAfterMs: failure.retryAfterMs };
    case "http":
      return { status: failure.status };
    case "network":
      return { code: failure.code };
  }
}

/** The system error code under a fetch failure (`ECONNREFUSED`), `timeout`, `aborted`, or `network`. */
function systemCode(cause: unknown): string {
  if (typeof cause !== "object" || cause === null) return "network";
  const { code, name, cause: inner } = cause as { code?: unknown; name?: unknown; cause?: unknown };
  if (typeof code === "string" && /^[A-Z_]+$/.test(code)) return code;
  if (name === "TimeoutError") return "timeout";
  if (name === "AbortError") return "aborted";
  return inner === undefined ? "network" : systemCode(inner);
}
