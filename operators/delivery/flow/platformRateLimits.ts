import type { SendKind } from "./sendKind.js";
import type { BucketLimit } from "./tokenBucket.js";

/** One platform's limits, resolved from `[rate_limits.<platform>]`. */
export interface PlatformRateLimits {
  /** Each conversation (chat, channel) of the platform. */
  readonly perConversation?: BucketLimit;
  /** Each group conversation, besides its `perConversation`. */
  readonly perGroup?: BucketLimit;
  /** The whole deployment's sends to the platform, shared across workers. */
  readonly perBot?: BucketLimit;
  /** Kinds of send the conversation's and the group's buckets count (a platform counts what it counts). */
  readonly conversationCounts: ReadonlySet<SendKind>;
  /** Kinds of send the bot's bucket counts. */
  readonly botCounts: ReadonlySet<SendKind>;
}

/** Whether any of the platform's buckets counts a send of `kind`. */
export function countsSend(limits: PlatformRateLimits, kind: SendKind): boolean {
  return limits.conversationCounts.has(kind) || (limits.perBot !== undefined && limits.botCounts.has(kind));
}
