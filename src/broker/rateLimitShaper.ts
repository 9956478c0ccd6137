import { MemoryRateBuckets } from "../../operators/delivery/flow/rateBuckets.js";
import { SendShaper } from "../../operators/delivery/flow/sendShaper.js";
import { resolveRateLimits } from "../config/rateLimits.js";
import type { Instruments } from "../metrics/instruments.js";
import { FallbackRateBuckets } from "../state/fallbackRateBuckets.js";
import { ShareFirstRateBuckets } from "../state/shareFirstRateBuckets.js";
import type { BrokerParts } from "./brokerParts.js";

/**
 * The worker's send shaper when `[rate_limits]` leaves any platform limited: conversation buckets
 * here, the per-bot ones in `parts.rates`. On a shared bus those are the deployment's: this
 * worker keeps its part of each limit locally (by the partitions it owns) and asks the shared
 * pool for the rest, with its share of the pool as the fallback when the pool cannot be reached.
 * `owned` is how many partitions this process owns now.
 */
export function rateLimitShaper(parts: BrokerParts, instruments: Instruments, owned: () => number): SendShaper | undefined {
  const limits = resolveRateLimits(parts.config.rate_limits);
  if (limits.size === 0) return undefined;
  const rates = parts.rates ?? new MemoryRateBuckets();
  const { partitions } = parts.config.bus;
  const bot = parts.bus.shared
    ? new ShareFirstRateBuckets({
        pool: new FallbackRateBuckets({ shared: rates, share: () => Math.max(1, owned()) / partitions, logger: parts.logger }),
        share: () => owned() / partitions,
      })
    : rates;
  return new SendShaper({
    limits: (platform) => limits.get(platform),
    bot,
    scheduler: parts.bus.scheduler,
    onWait: ({ bucket, waitedMs }) => instruments.sendShaped(bucket, waitedMs / 1000),
    onBucketError: (err) => parts.logger.warn({ reason: "rate_bucket_failed", err }, "rate limit bucket failed; sending by the conversation's limits"),
  });
}
