/** How the connector spaces its connection attempts (upstream: 1 s doubling to 30 s, no jitter). */
export interface BackoffPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
  /** A connection that stayed open this long proved healthy: only then does the backoff reset. */
  readonly healthyAfterMs: number;
}

export const defaultBackoff: BackoffPolicy = { initialMs: 1_000, maxMs: 30_000, healthyAfterMs: 10_000 };

/** How an attempt ended: it never opened, or it opened and stayed up `upMs`. */
export type ConnectionEnd = { readonly opened: false } | { readonly opened: true; readonly upMs: number };

export interface ReconnectPlan {
  /** Wait this long before the next attempt. */
  readonly delayMs: number;
  /** The backoff the attempt after that starts from. */
  readonly nextBackoffMs: number;
  /** The connection proved healthy (and reset the backoff). */
  readonly healthy: boolean;
}

/**
 * The next attempt after one ended. A connection that stayed up `healthyAfterMs` resets the backoff
 * and reconnects at once (as upstream); one that failed, or opened and closed sooner, waits the
 * current backoff and doubles it — so a gateway that accepts and then closes is not hammered.
 */
export function planReconnect(backoffMs: number, end: ConnectionEnd, policy: BackoffPolicy): ReconnectPlan {
  if (end.opened && end.upMs >= policy.healthyAfterMs) return { delayMs: 0, nextBackoffMs: policy.initialMs, healthy: true };
  return { delayMs: backoffMs, nextBackoffMs: Math.min(backoffMs * 2, policy.maxMs), healthy: false };
}
