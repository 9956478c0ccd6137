import type { BotApiFailure } from "./botApiFailure.js";

/** Why a poll failed, as its log line's `reason` says it. */
export type PollFailureReason = "network" | "server_error" | "conflict" | "webhook_active" | "unauthorized" | "rate_limited" | "refused";

/** How polling waits after a failure: doubling from `initialMs` to `maxMs`; a rejected token every `unauthorizedMs`. */
export interface PollBackoff {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly unauthorizedMs: number;
}

export const defaultPollBackoff: PollBackoff = { initialMs: 1_000, maxMs: 30_000, unauthorizedMs: 60_000 };

export interface PollRetry {
  readonly reason: PollFailureReason;
  readonly delayMs: number;
}

/**
 * What the `failures`-th failure in a row of polling (or of what comes before it: `getMe`, the
 * webhook check) means and how long to wait: Telegram's `retry_after` for a 429; a minute for a
 * token Telegram no longer takes (revoked in @BotFather: nothing changes until someone acts); else
 * 1 s doubling to 30 s — the network, a 5xx, and a 409 Conflict (another process polls this bot, or
 * a webhook was set meanwhile), which must not be hammered either.
 */
export function pollRetry(failure: BotApiFailure, failures: number, policy: PollBackoff = defaultPollBackoff): PollRetry {
  const doubling = Math.min(policy.initialMs * 2 ** Math.min(Math.max(failures - 1, 0), 30), policy.maxMs);
  if (failure.kind === "network") return { reason: "network", delayMs: doubling };
  const { status } = failure;
  if (status === 429) return { reason: "rate_limited", delayMs: failure.retryAfterMs ?? policy.initialMs };
  if (status === 401) return { reason: "unauthorized", delayMs: policy.unauthorizedMs };
  if (status === 409) return { reason: failure.description.toLowerCase().includes("webhook") ? "webhook_active" : "conflict", delayMs: doubling };
  return { reason: status >= 500 ? "server_error" : "refused", delayMs: doubling };
}

/**
 * The offset that confirms a batch's updates as far as they were settled: the first one not yet
 * settled (it and those after come again), or past the last when all were.
 */
export function confirmableOffset(updateIds: readonly number[], settled: ReadonlySet<number>): number | undefined {
  for (const id of updateIds) if (!settled.has(id)) return id;
  const last = updateIds.at(-1);
  return last === undefined ? undefined : last + 1;
}
