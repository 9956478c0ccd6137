import { filter, interval, map, merge, Observable, scan, takeWhile, type SchedulerLike } from "rxjs";

/** What the keepalive asks of the connection: send a ping, or give it up as dead. */
export type KeepaliveSignal = { readonly kind: "ping" } | { readonly kind: "abandon"; readonly missedPongs: number };

export interface KeepaliveState {
  /** Pings sent since the last pong. */
  readonly unanswered: number;
  readonly signal: KeepaliveSignal | undefined;
}

export const keepaliveStart: KeepaliveState = { unanswered: 0, signal: undefined };

/**
 * One step of the keepalive: a pong clears the count; a tick pings again, or abandons the
 * connection once `maxMissed` pings in a row went unanswered for a whole interval each.
 */
export function keepaliveStep(state: KeepaliveState, input: "tick" | "pong", maxMissed: number): KeepaliveState {
  if (input === "pong") return keepaliveStart;
  if (state.unanswered >= maxMissed) return { unanswered: state.unanswered, signal: { kind: "abandon", missedPongs: state.unanswered } };
  return { unanswered: state.unanswered + 1, signal: { kind: "ping" } };
}

export interface KeepaliveOptions {
  readonly intervalMs: number;
  /** Pongs missed in a row before the connection is abandoned (2). */
  readonly maxMissed: number;
  readonly scheduler?: SchedulerLike;
}

/**
 * A connection's keepalive: a ping every `intervalMs`; `abandon` (then completion) at the tick that
 * finds `maxMissed` pings unanswered, i.e. between `maxMissed` and `maxMissed + 1` intervals after
 * the last pong. `pongs` is the connection's pongs.
 */
export function keepalive(pongs: Observable<unknown>, { intervalMs, maxMissed, scheduler }: KeepaliveOptions): Observable<KeepaliveSignal> {
  const ticks = interval(intervalMs, scheduler).pipe(map(() => "tick" as const));
  return merge(ticks, pongs.pipe(map(() => "pong" as const))).pipe(
    scan((state: KeepaliveState, input: "tick" | "pong") => keepaliveStep(state, input, maxMissed), keepaliveStart),
    map((state) => state.signal),
    filter((signal): signal is KeepaliveSignal => signal !== undefined),
    takeWhile((signal) => signal.kind !== "abandon", true),
  );
}

/** What a WebSocket offers for its `pong` events (ws' node-style emitter). */
export interface PongSource {
  on(event: "pong", listener: () => void): unknown;
  off(event: "pong", listener: () => void): unknown;
}

/** A socket's pongs. Not `fromEvent`: it prefers ws' DOM-style `addEventListener`, which never reports pongs. */
export function pongsOf(socket: PongSource): Observable<void> {
  return new Observable<void>((subscriber) => {
    const pong = () => subscriber.next();
    socket.on("pong", pong);
    return () => socket.off("pong", pong);
  });
}
