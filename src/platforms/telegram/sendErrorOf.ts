import { SendError } from "../../wire/index.js";
import type { BotApiFailure } from "./botApiFailure.js";

/** How long to wait after a 429 that named no `retry_after` (the gateway path's default). */
const RATE_LIMITED_RETRY_MS = 1_000;
/** The calls that upload a file. */
const UPLOADS: ReadonlySet<string> = new Set(["sendPhoto", "sendDocument"]);

/**
 * A failed reply call as the gateway's ack would name it, so the sender treats both alike:
 * - 429 → `rate_limited` with `retryAfterMs` (Telegram's `retry_after`): waited out and sent again;
 * - an upload refused as too big (413 "Request Entity Too Large", "file is too big") →
 *   `file_too_large`: not posted, and no use sending again;
 * - any other refusal (400 "message is too long", "chat not found", 403 blocked by the user) →
 *   `rejected`, with Telegram's description;
 * - a 5xx, or a network failure once connected (a reset, a timeout) → `unknown`: the message may
 *   be in the chat, so it is never sent again;
 * - a connection that never opened → `disconnected`: nothing reached Telegram.
 */
export function sendErrorOf(method: string, failure: BotApiFailure, cause: unknown): SendError {
  if (failure.kind === "network") {
    return failure.connected
      ? new SendError("unknown", `Telegram's answer to ${method} was lost (${failure.code}); it may have been done`, { cause })
      : new SendError("disconnected", `Telegram could not be reached for ${method} (${failure.code})`, { cause });
  }
  const { status, description } = failure;
  if (UPLOADS.has(method) && (status === 413 || /request entity too large|file is too big/i.test(description))) {
    return new SendError("file_too_large", `Telegram refused ${method}: the file is too big (${status}: ${description})`, { cause });
  }
  if (status === 429) return new SendError("rate_limited", `Telegram refused ${method} for now (429): ${description}`, { cause, retryAfterMs: failure.retryAfterMs ?? RATE_LIMITED_RETRY_MS });
  if (status >= 500) return new SendError("unknown", `Telegram failed ${method} (${status}): ${description}; it may have been done`, { cause });
  return new SendError("rejected", `Telegram refused ${method} (${status}): ${description}`, { cause });
}
