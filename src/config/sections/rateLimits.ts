import * as z from "zod";
import { expecting } from "../problems/expected.js";
import { int, positiveNumber } from "../fields.js";

/** One bucket, `{ messages = N, per_secs = S, burst = B }`: N sends every S seconds, at most B back to back (default N). */
const bucket = z.strictObject({
  messages: int(1),
  per_secs: positiveNumber(),
  burst: int(1).optional(),
});

/** `[rate_limits.<platform>]`: what a table may set; an unset bucket keeps the platform's default. */
const platformLimits = z.strictObject({
  /** Default true: shaping on for a platform with defaults or with a bucket set here. */
  enabled: z.boolean().optional(),
  per_conversation: bucket.optional(),
  per_group: bucket.optional(),
  per_bot: bucket.optional(),
});

/**
 * `[rate_limits.<platform>]` (turnstream's own): how fast sends to a platform may go, per
 * conversation, per group conversation and per bot. Merged over the defaults of
 * `src/config/rateLimitDefaults.ts`; see docs/delivery.md#rate-limits.
 */
export const rateLimitsSection = z.record(expecting(z.string().min(1).describe("platform"), "a platform name"), platformLimits).prefault({});

export type RateLimitsInput = z.input<typeof rateLimitsSection>;
export type PlatformLimitsConfig = z.output<typeof platformLimits>;
export type BucketConfig = z.output<typeof bucket>;
