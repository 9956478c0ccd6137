import type { PlatformRateLimits } from "../../operators/delivery/flow/platformRateLimits.js";
import type { BucketLimit } from "../../operators/delivery/flow/tokenBucket.js";
import { RATE_LIMIT_COUNTS, RATE_LIMIT_DEFAULTS } from "./rateLimitDefaults.js";
import type { BucketConfig, PlatformLimitsConfig } from "./sections/rateLimits.js";

const MESSAGES_ONLY = { conversation: ["message"], bot: ["message"] } as const;

/**
 * Each platform's limits as the shaper reads them: the defaults, with every bucket
 * `[rate_limits.<platform>]` sets in place of the default one; none for a platform with
 * `enabled = false`, or with neither defaults nor a bucket set.
 */
export function resolveRateLimits(section: Readonly<Record<string, PlatformLimitsConfig>>): ReadonlyMap<string, PlatformRateLimits> {
  const platforms = new Set([...Object.keys(RATE_LIMIT_DEFAULTS), ...Object.keys(section)]);
  const resolved = new Map<string, PlatformRateLimits>();
  for (const platform of platforms) {
    const defaults: Partial<Record<"per_conversation" | "per_group" | "per_bot", BucketConfig>> = Object.hasOwn(RATE_LIMIT_DEFAULTS, platform)
      ? RATE_LIMIT_DEFAULTS[platform as keyof typeof RATE_LIMIT_DEFAULTS]
      : {};
    const set = Object.hasOwn(section, platform) ? section[platform] : undefined;
    if (set?.enabled === false) continue;
    const perConversation = bucketLimit(set?.per_conversation ?? defaults.per_conversation);
    const perGroup = bucketLimit(set?.per_group ?? defaults.per_group);
    const perBot = bucketLimit(set?.per_bot ?? defaults.per_bot);
    if (perConversation === undefined && perGroup === undefined && perBot === undefined) continue;
    const counts = Object.hasOwn(RATE_LIMIT_COUNTS, platform) ? (RATE_LIMIT_COUNTS[platform] ?? MESSAGES_ONLY) : MESSAGES_ONLY;
    resolved.set(platform, {
      ...(perConversation === undefined ? {} : { perConversation }),
      ...(perGroup === undefined ? {} : { perGroup }),
      ...(perBot === undefined ? {} : { perBot }),
      conversationCounts: new Set(counts.conversation),
      botCounts: new Set(counts.bot),
    });
  }
  return resolved;
}

function bucketLimit(bucket: BucketConfig | undefined): BucketLimit | undefined {
  if (bucket === undefined) return undefined;
  return { messages: bucket.messages, perSecs: bucket.per_secs, burst: bucket.burst ?? bucket.messages };
}
