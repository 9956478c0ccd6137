/**
 * A platform's send limit: `messages` every `perSecs` seconds sustained, at most `burst` back to
 * back. The limits chat platforms put on a bot (Telegram about 1 message per second per chat and
 * 20 per minute per group, Discord 5 per 5 s per channel) are this shape.
 *
 * Two rules hold together, so a limit means what it reads as:
 * - a token bucket: `burst` tokens, refilled at `messages / perSecs`; a send takes one;
 * - a sliding window: no window of `perSecs · W / messages` seconds holds more than
 *   W = max(`messages`, `burst`) sends. With `burst = messages` (the default) no `perSecs` window
 *   ever holds more than `messages` — what a platform counting "N per S" checks, and what a
 *   token bucket alone does not promise (a full bucket plus its refill during the window).
 */
export interface BucketLimit {
  readonly messages: number;
  readonly perSecs: number;
  /** Tokens a quiet bucket fills up to: how many sends may go back to back. */
  readonly burst: number;
}

/**
 * A bucket as of `at` (ms on the caller's clock): `tokens` left then, after every reservation so
 * far, and `recent`, the last departures the window rule looks back on (oldest first, at most
 * `MAX_WINDOW` of them).
 */
export interface BucketState {
  readonly tokens: number;
  readonly at: number;
  readonly recent: readonly number[];
}

/** When a send may go, and the bucket once its token is taken. */
export interface Departure {
  readonly at: number;
  readonly state: BucketState;
}

/**
 * Departures a bucket remembers at most. A window of more sends (a per-bot limit of 2,000/s) is
 * checked as k shorter windows of at most this many each, k·size ≤ W: never more sends than the
 * limit, slightly fewer at the edges, and a state of bounded size (the per-bot bucket is shared
 * through a KV store, written on every send).
 */
export const MAX_WINDOW = 64;

/** Tokens per millisecond. */
const rateOf = (limit: BucketLimit) => limit.messages / (limit.perSecs * 1000);

/** The window rule of `limit`: no `ms` window holds more than `size` sends. */
export function windowOf(limit: BucketLimit): { readonly size: number; readonly ms: number } {
  return { size: windowSize(limit), ms: windowMs(limit) };
}

/** `windowOf(limit).size`, without building the pair (the bucket functions run per send). */
function windowSize(limit: BucketLimit): number {
  const sends = Math.max(limit.messages, limit.burst);
  return sends <= MAX_WINDOW ? sends : Math.floor(sends / Math.ceil(sends / MAX_WINDOW));
}

/** `windowOf(limit).ms`. */
function windowMs(limit: BucketLimit): number {
  const sends = Math.max(limit.messages, limit.burst);
  const ms = (sends * limit.perSecs * 1000) / limit.messages;
  return sends <= MAX_WINDOW ? ms : ms / Math.ceil(sends / MAX_WINDOW);
}

/**
 * How late a send may leave after the time its token was taken for, under `limit`: 25 ms, or a
 * tenth of the window when that is shorter. A shared bucket is asked over the network and answers
 * after the time it reserved; `latenessMarginOf` is what `widened` adds to the window to allow for it.
 */
export function latenessMarginOf(limit: BucketLimit): number {
  return Math.min(25, windowOf(limit).ms / 10);
}

/**
 * `limit` with its window `marginMs` longer (the rate a little lower): sends that each leave at
 * most `marginMs` after the time their token was taken for still keep every real window of the
 * original limit within it.
 */
export function widened(limit: BucketLimit, marginMs: number): BucketLimit {
  const { ms } = windowOf(limit);
  return { messages: limit.messages, perSecs: (limit.perSecs * (ms + marginMs)) / ms, burst: limit.burst };
}

/**
 * Tokens the bucket holds at `time` (not before its `at`: a reservation in the future has already
 * spent what it will hold then). An untouched bucket (`undefined`) is full.
 */
function tokensAt(state: BucketState | undefined, limit: BucketLimit, time: number): number {
  if (state === undefined) return limit.burst;
  return Math.min(limit.burst, state.tokens + Math.max(0, time - state.at) * rateOf(limit));
}

/** The earliest time at or after `now` when the bucket has a whole token and its window has room. */
export function earliestDeparture(state: BucketState | undefined, limit: BucketLimit, now: number): number {
  if (state === undefined) return now;
  const base = Math.max(now, state.at);
  const tokens = tokensAt(state, limit, base);
  const byTokens = tokens >= 1 ? base : base + Math.ceil((1 - tokens) / rateOf(limit));
  const size = windowSize(limit);
  const { recent } = state;
  // The size-th latest departure must have left the window: (at - ms, at] then holds size - 1.
  const byWindow = recent.length < size ? base : Math.ceil((recent[recent.length - size] as number) + windowMs(limit));
  return Math.max(byTokens, byWindow);
}

/**
 * Takes one token at `at` (which must be `earliestDeparture` or later): the bucket after. Of the
 * departures before, it keeps those the window can still count — the last size − 1, and none that
 * left the window by `at` (departures come in order) — so a bucket far from its limit stays small.
 */
export function takeToken(state: BucketState | undefined, limit: BucketLimit, at: number): BucketState {
  if (state === undefined) return { tokens: limit.burst - 1, at, recent: [at] };
  const size = windowSize(limit);
  const ms = windowMs(limit);
  const { recent } = state;
  let first = Math.max(0, recent.length - size + 1);
  while (first < recent.length && (recent[first] as number) + ms <= at) first++;
  const kept = recent.slice(first);
  kept.push(at);
  return { tokens: Math.max(0, tokensAt(state, limit, at) - 1), at: Math.max(at, state.at), recent: kept };
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

/**
 * The bucket once a gateway refused a send with "not before `until`" (its `retry_after`), that
 * send to be made again then: the platform counted more than this bucket knew of, so the bucket is
 * as good as empty at `until`, when the retry takes its token; the next send follows at the
 * sustained rate.
 */
export function heldUntil(state: BucketState | undefined, limit: BucketLimit, until: number): BucketState {
  const held: BucketState = { tokens: Math.min(1, tokensAt(state, limit, until)), at: Math.max(until, state?.at ?? until), recent: state?.recent ?? [] };
  return takeToken(held, limit, held.at);
}

/** Whether a bucket last touched as `state` is as good as new at `now` (full, its window empty): its state can be forgotten. */
export function bucketFull(state: BucketState, limit: BucketLimit, now: number): boolean {
  const last = state.recent[state.recent.length - 1];
  return tokensAt(state, limit, now) >= limit.burst && state.at <= now && (last === undefined || last + windowMs(limit) <= now);
}

/** Whether a stored value is a bucket state (a shared store reads what another worker wrote). */
export function isBucketState(value: unknown): value is BucketState {
  if (typeof value !== "object" || value === null) return false;
  const { tokens, at, recent } = value as Record<string, unknown>;
  return (
    typeof tokens === "number" &&
    Number.isFinite(tokens) &&
    typeof at === "number" &&
    Number.isFinite(at) &&
    Array.isArray(recent) &&
    recent.length <= MAX_WINDOW &&
    recent.every((time) => typeof time === "number" && Number.isFinite(time))
  );
}
