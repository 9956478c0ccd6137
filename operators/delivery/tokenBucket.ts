/**
 * A token bucket: `messages` tokens every `perSecs` seconds, holding at most `burst`. A send takes
 * one token; with none left it waits for the next. The limits chat platforms put on a bot
 * (Telegram about 1 message per second per chat, Discord 5 per 5 s per channel) are this shape.
 */
export interface BucketLimit {
  readonly messages: number;
  readonly perSecs: number;
  /** Tokens a quiet bucket fills up to: how many sends may go back to back. */
  readonly burst: number;
}

/** A bucket as of `at` (ms on the caller's clock): `tokens` left then, after every reservation so far. */
export interface BucketState {
  readonly tokens: number;
  readonly at: number;
}

/** When a send may go, and the bucket once its token is taken. */
export interface Departure {
  readonly at: number;
  readonly state: BucketState;
}

/** Tokens per millisecond. */
const rateOf = (limit: BucketLimit) => limit.messages / (limit.perSecs * 1000);

/**
 * Tokens the bucket holds at `time` (not before its `at`: a reservation in the future has already
 * spent what it will hold then). An untouched bucket (`undefined`) is full.
 */
function tokensAt(state: BucketState | undefined, limit: BucketLimit, time: number): number {
  if (state === undefined) return limit.burst;
  return Math.min(limit.burst, state.tokens + Math.max(0, time - state.at) * rateOf(limit));
}

/** The earliest time at or after `now` when the bucket has a whole token. */
export function earliestDeparture(state: BucketState | undefined, limit: BucketLimit, now: number): number {
  const base = state === undefined ? now : Math.max(now, state.at);
  const tokens = tokensAt(state, limit, base);
  return tokens >= 1 ? base : base + Math.ceil((1 - tokens) / rateOf(limit));
}

/** Takes one token at `at` (which must be `earliestDeparture` or later): the bucket after. */
export function takeToken(state: BucketState | undefined, limit: BucketLimit, at: number): BucketState {
  return { tokens: Math.max(0, tokensAt(state, limit, at) - 1), at: Math.max(at, state?.at ?? at) };
}

/**
 * When a send may go through every bucket it counts against (a conversation's, a group's, the
 * bot's), and their states once it took a token from each at that moment: the latest of their
 * earliest departures, so none is overdrawn. Pure: the caller keeps the states.
 */
export function departure(buckets: readonly { readonly state: BucketState | undefined; readonly limit: BucketLimit }[], now: number): { readonly at: number; readonly states: readonly BucketState[] } {
  let at = now;
  for (const { state, limit } of buckets) at = Math.max(at, earliestDeparture(state, limit, now));
  return { at, states: buckets.map(({ state, limit }) => takeToken(state, limit, at)) };
}

/** Whether a bucket last touched as `state` is full again at `now` (its state can be forgotten). */
export function bucketFull(state: BucketState, limit: BucketLimit, now: number): boolean {
  return tokensAt(state, limit, now) >= limit.burst;
}
