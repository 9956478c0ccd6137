import { GrammyError, HttpError } from "grammy";

/**
 * A failed Bot API call, as turnstream reads it: Telegram's answer (its `error_code`, its
 * description and `retry_after`), or the network's (a system error code, a timeout). Safe to log:
 * never the request's URL, which carries the bot token, nor its payload.
 */
export type BotApiFailure =
  | { readonly kind: "refused"; readonly status: number; readonly description: string; readonly retryAfterMs?: number }
  /** No answer: `connected` says whether the request may have reached Telegram (a reset, a timeout) or surely did not (refused, no route). */
  | { readonly kind: "network"; readonly code: string; readonly connected: boolean };

/** Connection failures before anything was sent: the call certainly did nothing. */
const NOT_CONNECTED: ReadonlySet<string> = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL"]);

export function botApiFailure(err: unknown): BotApiFailure {
  if (err instanceof GrammyError) {
    const retryAfter = err.parameters.retry_after;
    return { kind: "refused", status: err.error_code, description: err.description, ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter * 1000 }) };
  }
  const code = systemCode(err instanceof HttpError ? err.error : err);
  return { kind: "network", code, connected: !NOT_CONNECTED.has(code) };
}

/** The system error code under a fetch failure (`ECONNREFUSED`), `timeout`, `aborted`, or `network`. */
function systemCode(cause: unknown): string {
  if (typeof cause !== "object" || cause === null) return "network";
  const { code, name, message, cause: inner } = cause as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown };
  if (typeof code === "string" && /^[A-Z_]+$/.test(code)) return code;
  if (name === "AbortError" || name === "TimeoutError") return "aborted";
  // grammY's own request timeout is a plain Error.
  if (typeof message === "string" && message.includes("timed out")) return "timeout";
  return inner === undefined ? "network" : systemCode(inner);
}

/** Whether Telegram answered that an edit would change nothing: the message already shows it. */
export function isNotModified(failure: BotApiFailure): boolean {
  return failure.kind === "refused" && failure.status === 400 && failure.description.includes("message is not modified");
}
