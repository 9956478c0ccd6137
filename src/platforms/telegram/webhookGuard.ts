import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { isTelegramAddress, sourceAddress } from "./telegramSource.js";

/** The header Telegram sends the webhook's `secret_token` in. */
export const SECRET_TOKEN_HEADER = "x-telegram-bot-api-secret-token";

export interface WebhookGuardConfig {
  /** `[telegram] webhook_path`: the only path served. */
  readonly path: string;
  /** `[telegram] secret_token`: when set, every request must carry it. */
  readonly secretToken?: string | undefined;
  /** `[telegram] trusted_source_only`: requests only from Telegram's subnets. */
  readonly trustedSourceOnly: boolean;
}

/** What a webhook request is, as far as the guard looks. */
export interface WebhookRequest {
  readonly method: string | undefined;
  /** The request target; its query is ignored. */
  readonly url: string | undefined;
  readonly headers: IncomingHttpHeaders;
  /** The connection's peer address. */
  readonly peer: string | undefined;
}

export type WebhookRefusalReason = "not_found" | "method_not_allowed" | "untrusted_source" | "secret_token_missing" | "secret_token_wrong";

export interface WebhookRefusal {
  readonly status: 401 | 403 | 404 | 405;
  readonly reason: WebhookRefusalReason;
}

/**
 * Why a request to the webhook listener is refused before its body is read, or undefined to read
 * it: another path (404) or method (405); with `trusted_source_only`, a source outside Telegram's
 * subnets (403, the source read as `sourceAddress` says); with `secret_token`, a missing or wrong
 * `X-Telegram-Bot-Api-Secret-Token` (401, compared in constant time).
 */
export function webhookRefusal(request: WebhookRequest, config: WebhookGuardConfig): WebhookRefusal | undefined {
  if (pathOf(request.url) !== config.path) return { status: 404, reason: "not_found" };
  if (request.method !== "POST") return { status: 405, reason: "method_not_allowed" };
  if (config.trustedSourceOnly && !isTelegramAddress(sourceAddress(request.headers, request.peer))) return { status: 403, reason: "untrusted_source" };
  const expected = config.secretToken;
  if (expected === undefined) return undefined;
  const given = request.headers[SECRET_TOKEN_HEADER];
  if (typeof given !== "string" || given === "") return { status: 401, reason: "secret_token_missing" };
  return sameSecret(given, expected) ? undefined : { status: 401, reason: "secret_token_wrong" };
}

/** Equal in constant time, whatever the lengths: both sides hashed first, so neither the length nor a prefix leaks. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function pathOf(url: string | undefined): string {
  const target = url ?? "";
  const query = target.indexOf("?");
  return query === -1 ? target : target.slice(0, query);
}
