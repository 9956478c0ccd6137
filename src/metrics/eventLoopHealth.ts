/** How often the heartbeat ticks, and how long a stall may last before `/healthz` fails. */
export const HEARTBEAT_MS = 500;
export const STALL_LIMIT_MS = 5_000;
/** How far back a stall still counts. */
const WINDOW_MS = 10_000;

export interface EventLoopHealthOptions {
  /** Default `Date.now` (this is an edge of the process, not an operator). */
  readonly now?: () => number;
  readonly heartbeatMs?: number;
  readonly stallLimitMs?: number;
}

export interface Health {
  readonly healthy: boolean;
  /** The longest a heartbeat was late within the last 10 s, in ms. */
  readonly stallMs: number;
}

/**
 * Whether the event loop is responsive: a heartbeat timer notes how late each tick fires. A
 * process that answers `/healthz` at all is turning its loop; one whose loop stalled for more
 * than `stallLimitMs` within the last 10 s is reported unhealthy, so a liveness probe sees a loop
 * that keeps freezing even when a probe happens to land between freezes.
 */
export class EventLoopHealth {
  readonly #now: () => number;
  readonly #heartbeatMs: number;
  readonly #stallLimitMs: number;
  #timer: NodeJS.Timeout | undefined;
  #last: number;
  /** Stalls worth remembering: [when it ended, how long] — at most a few, pruned to the window. */
  #stalls: [number, number][] = [];

  constructor(options: EventLoopHealthOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
    this.#stallLimitMs = options.stallLimitMs ?? STALL_LIMIT_MS;
    this.#last = this.#now();
  }

  start(): void {
    if (this.#timer !== undefined) return;
    this.#last = this.#now();
    this.#timer = setInterval(() => this.beat(), this.#heartbeatMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One heartbeat (the timer's; tests call it directly). */
  beat(): void {
    const now = this.#now();
    const late = now - this.#last - this.#heartbeatMs;
    this.#last = now;
    if (late > this.#heartbeatMs) this.#stalls.push([now, late]);
    this.#prune(now);
  }

  check(): Health {
    const now = this.#now();
    this.#prune(now);
    // A stall still going on (the probe itself waited for the loop) counts as well.
    const current = Math.max(0, now - this.#last - this.#heartbeatMs);
    const stallMs = Math.max(current, ...this.#stalls.map(([, ms]) => ms));
    return { healthy: stallMs <= this.#stallLimitMs, stallMs };
  }

  #prune(now: number): void {
    if (this.#stalls.length > 0 && (this.#stalls[0] as [number, number])[0] < now - WINDOW_MS) this.#stalls = this.#stalls.filter(([at]) => at >= now - WINDOW_MS);
  }
}
