import { expect } from "vitest";
import type { DevGateway } from "../../src/devgateway/devGateway.js";

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

/** The most arrivals any window `[t, t + ms)` holds. */
export function busiestWindow(arrivals: readonly Arrival[], ms: number): number {
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

/** The shortest time between two consecutive arrivals in one conversation (Infinity if none has two). */
export function closestGap(arrivals: readonly Arrival[]): number {
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
 * bounded well clear of no pacing at all, and the two together must span the pacing. Exact gaps
 * are pinned in virtual time.
 */
export function expectPacedNotShaped(arrivals: readonly Arrival[]): number[] {
  const [first, second, third] = arrivals.map((arrival) => arrival.at) as [number, number, number];
  const gaps = [second - first, third - second];
  for (const gap of gaps) {
    expect(gap).toBeGreaterThanOrEqual(200);
    expect(gap).toBeLessThan(1_000);
  }
  expect(third - first).toBeGreaterThanOrEqual(700);
  return gaps;
}
