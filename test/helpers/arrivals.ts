import { expect } from "vitest";
import { SEND_LEAVING_LOG } from "../../src/broker/brokerSender.js";
import type { DevGateway } from "../../src/devgateway/devGateway.js";
import { until } from "./stack.js";

/** One message frame as it reached the gateway: its conversation, its text, and `Date.now()` then. */
export interface Arrival {
  readonly channel: string;
  readonly text: string;
  readonly at: number;
}

/**
 * Every message frame (not status commands) the gateway receives from now on, stamped as it
 * arrives: `received` emits in the socket's message handler, the same tick the gateway acks in.
 */
export function recordArrivals(gateway: DevGateway): Arrival[] {
  const arrivals: Arrival[] = [];
  gateway.received.subscribe((received) => {
    if (received.kind === "reply" && received.frame.command === undefined) {
      arrivals.push({ channel: received.frame.channel.id, text: received.frame.content.text, at: Date.now() });
    }
  });
  return arrivals;
}

/** The most arrivals (or departures) any window `[t, t + ms)` holds. */
export function busiestWindow(arrivals: readonly { readonly at: number }[], ms: number): number {
  const times = arrivals.map((arrival) => arrival.at).sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, last = 0; first < times.length; first++) {
    while (last < times.length && (times[last] as number) < (times[first] as number) + ms) last++;
    most = Math.max(most, last - first);
  }
  return most;
}

/** Each conversation's texts, in arrival order. */
export function textsByConversation(arrivals: readonly Arrival[]): Map<string, string[]> {
  const texts = new Map<string, string[]>();
  for (const { channel, text } of arrivals) texts.set(channel, [...(texts.get(channel) ?? []), text]);
  return texts;
}

/** The shortest time between two consecutive arrivals (or departures) in one conversation (Infinity if none has two). */
export function closestGap(arrivals: readonly { readonly channel: string; readonly at: number }[]): number {
  const last = new Map<string, number>();
  let closest = Infinity;
  for (const { channel, at } of arrivals) {
    const before = last.get(channel);
    if (before !== undefined) closest = Math.min(closest, at - before);
    last.set(channel, at);
  }
  return closest;
}

/** From the first arrival to the last. */
export function spreadOf(arrivals: readonly Arrival[]): number {
  return (arrivals.at(-1)?.at ?? 0) - (arrivals[0]?.at ?? 0);
}

/**
 * The gaps between one turn's three bubbles, checked to be their pacing (`bubble_delay_ms` 400,
 * give or take the machine) and not a rate limit's hold (a second or more). Bubbles are paced from
 * when the previous one left, so a bubble the gateway read late shortens the next gap by as much
 * (a full run saw 309 ms after a late bubble, other suites busy on both cores): each gap is only
 * bounded well clear of no pacing at all, and the two together must span the pacing. Departures
 * (`departuresOf`, a worker's own clock) may be given instead, where the gateway's reader is busy.
 * Exact gaps are pinned in virtual time.
 */
export function expectPacedNotShaped(arrivals: readonly Pick<Arrival, "at">[]): number[] {
  const [first, second, third] = arrivals.map((arrival) => arrival.at) as [number, number, number];
  const gaps = [second - first, third - second];
  for (const gap of gaps) {
    expect(gap).toBeGreaterThanOrEqual(200);
    expect(gap).toBeLessThan(1_000);
  }
  expect(third - first).toBeGreaterThanOrEqual(700);
  return gaps;
}

/** One message as it left a worker for the gateway: its conversation and the time of its debug line. */
export interface Departure {
  readonly channel: string;
  readonly at: number;
}

/**
 * Every message the members' logs show leaving for their platform (`SEND_LEAVING_LOG`, logged at
 * debug: start the cluster with `logLevel: "debug"`), in time order: the
 * departures the rate limits shape, timed where they are decided rather than where they arrive.
 */
export function departuresOf(members: readonly { readonly logs: readonly Record<string, unknown>[] }[]): Departure[] {
  return members
    .flatMap((member) => member.logs)
    .filter((line) => line.msg === SEND_LEAVING_LOG && line.kind === "message")
    .map((line) => ({ channel: String(line.channel), at: Number(line.time) }))
    .sort((a, b) => a.at - b.at);
}

/**
 * How much the trip from a worker to the gateway's reader varied across the run: the longest
 * trip less the shortest, each message's trip its arrival less its departure (a conversation's
 * messages keep their order, so its k-th arrival is its k-th departure). On two loaded cores a
 * process scheduled late stretches one trip; a window at the gateway is only as exact as this.
 */
export function tripSpread(departures: readonly Departure[], arrivals: readonly Arrival[]): number {
  const left = new Map<string, number[]>();
  for (const { channel, at } of departures) {
    const times = left.get(channel);
    if (times === undefined) left.set(channel, [at]);
    else times.push(at);
  }
  const seen = new Map<string, number>();
  let shortest = Infinity;
  let longest = -Infinity;
  for (const { channel, at } of arrivals) {
    const index = seen.get(channel) ?? 0;
    seen.set(channel, index + 1);
    const departed = left.get(channel)?.[index];
    if (departed === undefined) throw new Error(`an arrival in ${channel} that no departure matches`);
    shortest = Math.min(shortest, at - departed);
    longest = Math.max(longest, at - departed);
  }
  return arrivals.length === 0 ? 0 : longest - shortest;
}

/**
 * Measured where the broker decides them (its `SEND_LEAVING_LOG` debug lines), sends keep the
 * limits exactly: no second holds more than the per-bot limit (the bucket holds it as that many per
 * 1.1 s, each send at most 25 ms late), and one chat's two messages leave at least a second apart
 * (log times are whole milliseconds, so 998 ms at the least).
 */
export const SECOND = 1_000;
export const DEPARTURE_GAP_MS = 998;

/**
 * At the gateway the same holds while the trips from the broker differ by no more than the
 * per-bot margin allows for (three margins of 25 ms, delivery.md "The three buckets"), with 20 ms
 * of slack for reading the frames. A trip is one process after another on two cores other suites
 * keep busy, and full runs saw one stretched past that: the window at the gateway narrows by as
 * much as the trips differed beyond it, and the least gap by as much as they differed at all.
 */
export const PATH_ALLOWANCE_MS = 75;
export const SECOND_LESS_SLACK = 980;

/** What a rate-limit test reads: the departures, how much the trips differed, and the window in which arrivals must keep the per-bot limit. */
export interface LimitMeasure {
  readonly departures: Departure[];
  readonly trips: number;
  readonly window: number;
}

/**
 * The members' departures (their logs at debug), how much the trips to the gateway differed
 * (`trips`), and the window in which the arrivals must keep the per-bot limit: a second less the
 * reading slack, narrowed by however much the trips differed beyond the margin's allowance.
 */
export async function measureLimits(members: readonly { readonly logs: readonly Record<string, unknown>[] }[], arrivals: readonly Arrival[]): Promise<LimitMeasure> {
  // A member's log line may reach the test after its message reached the gateway.
  await until(() => departuresOf(members).length >= arrivals.length, 5_000);
  const departures = departuresOf(members);
  expect(departures).toHaveLength(arrivals.length);
  const trips = tripSpread(departures, arrivals);
  // Past a second the window at the gateway would hold nothing to count: say so rather than pass on it.
  expect(trips, "the broker's trips to the gateway differed by a second or more").toBeLessThan(SECOND);
  return { departures, trips, window: Math.min(SECOND_LESS_SLACK, SECOND + PATH_ALLOWANCE_MS - trips) };
}
