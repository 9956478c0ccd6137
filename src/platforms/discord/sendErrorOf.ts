import { DiscordAPIError, HTTPError } from "@discordjs/rest";
import { SendError } from "../../wire/index.js";
import { DiscordRateLimited } from "./discordRest.js";

/** How long to wait after a 429 that named no wait (the gateway path's default). */
const RATE_LIMITED_RETRY_MS = 1_000;

/** Discord's JSON code for a body over its upload limit ("Request entity too large"), answered with HTTP 413. */
const REQUEST_ENTITY_TOO_LARGE = 40005;

/** Network failures that mean the request never reached Discord. */
const NOT_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

/**
 * A failed reply call as the gateway's ack would name it, so the sender treats every platform alike:
 * - a rate limit → `rate_limited` with `retryAfterMs` (Discord's `retry_after`): waited out and sent again;
 * - a file over the upload limit (413, code 40005) → `file_too_large`: the conversation is told instead;
 * - any other 4xx (50013 Missing Permissions, 10008 Unknown Message, 50035 Invalid Form Body) →
 *   `rejected`, with Discord's status, code and message;
 * - a 5xx, a timeout or a connection lost on the way → `unknown`: it may be posted, never sent again;
 * - Discord not reached at all → `disconnected`: nothing was posted.
 */
export function sendErrorOf(route: string, err: unknown): SendError {
  if (err instanceof SendError) return err;
  if (err instanceof DiscordRateLimited) {
    return new SendError("rate_limited", `Discord refused ${route} for now (429)`, { cause: err, retryAfterMs: err.retryAfterMs > 0 ? err.retryAfterMs : RATE_LIMITED_RETRY_MS });
  }
  if (isTooLarge(err)) return new SendError("file_too_large", `Discord refused ${route}: the file is over the upload limit (413)`, { cause: err });
  if (err instanceof DiscordAPIError) {
    if (err.status >= 500) return new SendError("unknown", `Discord failed ${route} (${err.status}); it may have been done`, { cause: err });
    return new SendError("rejected", `Discord refused ${route} (${err.status}, code ${err.code}): ${err.message}`, { cause: err });
  }
  if (err instanceof HTTPError) return new SendError("unknown", `Discord failed ${route} (${err.status}); it may have been done`, { cause: err });
  const code = networkCode(err);
  if (code !== undefined && NOT_SENT.has(code)) return new SendError("disconnected", `Discord could not be reached for ${route} (${code})`, { cause: err });
  return new SendError("unknown", `Discord's answer to ${route} was lost (${code ?? "network error"}); it may have been done`, { cause: err });
}

/**
 * Whether Discord refused a body as too large: 413 with code 40005 in JSON, or a bare 413 from its
 * edge (a body that is no JSON gives `DiscordAPIError` no code).
 */
export function isTooLarge(err: unknown): boolean {
  if (err instanceof DiscordAPIError) return err.status === 413 || err.code === REQUEST_ENTITY_TOO_LARGE;
  return err instanceof HTTPError && err.status === 413;
}

/** The status and Discord code of a refusal, for logs; undefined for anything else. */
export function refusalOf(err: unknown): { readonly status: number; readonly code: number | string } | undefined {
  return err instanceof DiscordAPIError ? { status: err.status, code: err.code } : undefined;
}

function networkCode(err: unknown): string | undefined {
  const direct = (err as { code?: unknown }).code;
  if (typeof direct === "string") return direct;
  const cause = (err as { cause?: { code?: unknown } }).cause?.code;
  if (typeof cause === "string") return cause;
  const name = (err as { name?: unknown }).name;
  return name === "AbortError" || name === "TimeoutError" ? "timeout" : undefined;
}
