import { createHash } from "node:crypto";
import { DiscordApiError } from "./discordApiError.js";

/** A route's limit: `limit` requests per `windowMs` for each top-level resource (a channel, a guild, a webhook). */
export interface BucketRule {
  readonly limit: number;
  readonly windowMs: number;
}

/** What a 429 says (docs: Topics › Rate Limits). `retryAfter` in seconds, a float as Discord gives it. */
export interface RateLimitAnswer {
  readonly retryAfter: number;
  /** The bot's global limit (X-RateLimit-Global; no bucket headers). */
  readonly global?: boolean;
  /** `shared`: the resource's limit, not the bot's (Discord does not count it against the bot). */
  readonly scope?: "user" | "shared" | "global";
  /** The bucket the route is in (for its headers). */
  readonly limit?: number;
  readonly remaining?: number;
}

/**
 * Per-route buckets with Discord's headers, for the routes a test gives a rule: each answer carries
 * X-RateLimit-Limit, -Remaining, -Reset, -Reset-After and -Bucket; one request too many is a 429. Routes
 * without a rule are not limited and carry no headers. Buckets are keyed by route and top-level resource,
 * as Discord keys them.
 */
export class RateLimits {
  private readonly rules = new Map<string, BucketRule>();
  private readonly buckets = new Map<string, { remaining: number; resetAt: number }>();

  constructor(private readonly now: () => number) {}

  /** Limits a route ("createMessage") from now on; undefined lifts the limit. */
  limit(route: string, rule: BucketRule | undefined): void {
    if (rule) this.rules.set(route, rule);
    else this.rules.delete(route);
  }

  /** Takes one request from the route's bucket: the headers to answer with, or a 429 (thrown). */
  take(route: string, major: string | undefined): Record<string, string> {
    const rule = this.rules.get(route);
    if (!rule) return {};
    const key = `${route}:${major ?? "global"}`;
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (!bucket || now >= bucket.resetAt) {
      bucket = { remaining: rule.limit, resetAt: now + rule.windowMs };
      this.buckets.set(key, bucket);
    }
    const resetAfter = (bucket.resetAt - now) / 1000;
    if (bucket.remaining === 0) throw rateLimited(route, { retryAfter: resetAfter, limit: rule.limit, remaining: 0 }, now);
    bucket.remaining--;
    return bucketHeaders(route, rule.limit, bucket.remaining, resetAfter, now);
  }
}

/** A 429 as Discord sends it: body `{message, retry_after, global}`, Retry-After in whole seconds (rounded up). */
export function rateLimited(route: string, answer: RateLimitAnswer, now: number): DiscordApiError {
  const scope = answer.global ? "global" : (answer.scope ?? "user");
  const retryAfter = round3(answer.retryAfter);
  const message = scope === "shared" ? "The resource is being rate limited." : "You are being rate limited.";
  const headers: Record<string, string> =
    scope === "global"
      ? { "Retry-After": String(Math.ceil(retryAfter)), "X-RateLimit-Global": "true", "X-RateLimit-Scope": "global" }
      : { "Retry-After": String(Math.ceil(retryAfter)), ...bucketHeaders(route, answer.limit ?? 5, answer.remaining ?? 0, retryAfter, now), "X-RateLimit-Scope": scope };
  return new DiscordApiError(429, { message, retry_after: retryAfter, global: scope === "global" }, headers);
}

function bucketHeaders(route: string, limit: number, remaining: number, resetAfterSeconds: number, now: number): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(limit),
    "X-RateLimit-Remaining": String(remaining),
    "X-RateLimit-Reset": (now / 1000 + resetAfterSeconds).toFixed(3),
    "X-RateLimit-Reset-After": resetAfterSeconds.toFixed(3),
    "X-RateLimit-Bucket": createHash("sha1").update(route).digest("hex").slice(0, 32),
  };
}

const round3 = (seconds: number) => Math.round(seconds * 1000) / 1000;
