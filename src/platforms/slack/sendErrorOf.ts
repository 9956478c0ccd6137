import { SendError } from "../../wire/index.js";
import type { SlackApiFailure } from "./slackApiFailure.js";

/** How long to wait after a 429 that named no `Retry-After` (the gateway path's default). */
const RATE_LIMITED_RETRY_MS = 1_000;

/**
 * Slack's errors after which the call may have been done in part ("likely a transient issue on our
 * end; it's possible some aspect of the operation succeeded"): its outcome is unknown.
 */
const MAYBE_DONE: ReadonlySet<string> = new Set(["internal_error", "fatal_error", "service_unavailable", "request_timeout"]);

/**
 * Slack's answers that a file is too big to upload: `files.getUploadURLExternal`'s
 * `file_upload_size_restricted` ("The size of provided file is too large, as the team has
 * restricted uploads of large files"), its only documented size error.
 */
const TOO_LARGE: ReadonlySet<string> = new Set(["file_upload_size_restricted"]);

/**
 * A failed reply call as the gateway's ack would name it, so the sender treats both alike:
 * - 429 with `Retry-After` (or `ratelimited` in the body) → `rate_limited` with `retryAfterMs`:
 *   waited out and sent again;
 * - a file too big (`file_upload_size_restricted`, or HTTP 413 from the upload URL) →
 *   `file_too_large`: the conversation is told instead;
 * - `{ok:false}` with any other error (`channel_not_found`, `msg_too_long`, `not_in_channel`) →
 *   `rejected`, with Slack's error; except Slack's "maybe done" errors (`internal_error`…) → `unknown`;
 * - another HTTP status: 5xx → `unknown` (the message may be in the channel, never sent again),
 *   4xx → `rejected`;
 * - a network failure once connected (a reset, a timeout) → `unknown`; a connection that never
 *   opened → `disconnected`: nothing reached Slack.
 */
export function sendErrorOf(method: string, failure: SlackApiFailure, cause: unknown): SendError {
  switch (failure.kind) {
    case "rate_limited":
      return new SendError("rate_limited", `Slack refused ${method} for now (429)`, { cause, retryAfterMs: failure.retryAfterMs });
    case "refused":
      if (TOO_LARGE.has(failure.error)) return new SendError("file_too_large", `Slack refused ${method}: ${failure.error}`, { cause });
      if (failure.error === "ratelimited") return new SendError("rate_limited", `Slack refused ${method} for now (ratelimited)`, { cause, retryAfterMs: RATE_LIMITED_RETRY_MS });
      if (MAYBE_DONE.has(failure.error)) return new SendError("unknown", `Slack failed ${method} (${failure.error}); it may have been done`, { cause });
      return new SendError("rejected", `Slack refused ${method}: ${failure.error}`, { cause });
    case "http":
      if (failure.status === 413) return new SendError("file_too_large", `Slack refused ${method} (HTTP 413)`, { cause });
      return failure.status >= 500
        ? new SendError("unknown", `Slack failed ${method} (HTTP ${failure.status}); it may have been done`, { cause })
        : new SendError("rejected", `Slack refused ${method} (HTTP ${failure.status})`, { cause });
    case "network":
      return failure.connected
        ? new SendError("unknown", `Slack's answer to ${method} was lost (${failure.code}); it may have been done`, { cause })
        : new SendError("disconnected", `Slack could not be reached for ${method} (${failure.code})`, { cause });
  }
}
