// Flow control: pacing and the platforms' rate limits.
// The public surface of delivery/flow/: everything else in the folder is internal.
export { paceBubbles } from "./paceBubbles.js";
export {
  bucketFull,
  departure,
  earliestDeparture,
  heldUntil,
  isBucketState,
  MAX_WINDOW,
  takeToken,
  windowOf,
  type BucketLimit,
  type BucketState,
  type Departure,
} from "./tokenBucket.js";
export { rateLimited, type BucketRef, type RateLimitedOptions } from "./rateLimited.js";
export { MemoryRateBuckets, takeFrom, type RateBuckets, type Take, type TakeMode } from "./rateBuckets.js";
export { SendShaper, type SendShaperOptions, type ShapedWait } from "./sendShaper.js";
export { sendClassOf, type SendClass } from "./sendClass.js";
export type { PlatformRateLimits } from "./platformRateLimits.js";
export { SEND_KINDS, sendKind, type SendKind } from "./sendKind.js";
