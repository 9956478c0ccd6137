import { monitorEventLoopDelay } from "node:perf_hooks";

/** How often the heartbeat ticks, and how long a stall may last before `/healthz` fails. */
export const HEARTBEAT_MS = 500;
export const STALL_LIMIT_MS = 5_000;
/** How far back a stall still counts. */
const WINDOW_MS = 10_000;
/** How often perf_hooks samples the loop's delay for `lagMs()`: the lag's resolution. */
export const LAG_RESOLUTION_MS = 10;

/** What `lagMs()` reads: perf_hooks' event-loop delay histogram (in ns), or a test's stand-in. */
export interface DelayMonitor {
  readonly max: number;
  reset(): void;
  enable(): boolean;
  disable(): boolean;
}

export interface EventLoopHealthOptions {
  /** Default `Date.now` (this is an edge of the process, not an operator). */
  readonly now?: () => number;
  readonly heartbeatMs?: number;
  readonly stallLimitMs?: number;
  /** Default perf_hooks' `monitorEventLoopDelay` at `LAG_RESOLUTION_MS`. */
  readonly delayMonitor?: () => DelayMonitor;
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
  /**
   * Two delay monitors read and reset in turn, one per heartbeat: a monitor does not measure the
   * interval right after its reset, and the other one, reset a heartbeat earlier, does.
   */
  readonly #monitors: readonly [DelayMonitor, DelayMonitor];
  #turn: 0 | 1 = 0;
  /** Each heartbeat's reading: [when, the longest delay its monitor saw (ms)], over the window. */
  #delays: [number, number][] = [];

  constructor(options: EventLoopHealthOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
    this.#stallLimitMs = options.stallLimitMs ?? STALL_LIMIT_MS;
    this.#last = this.#now();
    const monitor = options.delayMonitor ?? (() => monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS }));
    this.#monitors = [monitor(), monitor()];
  }

  start(): void {
    if (this.#timer !== undefined) return;
    this.#last = this.#now();
    for (const monitor of this.#monitors) monitor.enable();
    this.#timer = setInterval(() => this.beat(), this.#heartbeatMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    for (const monitor of this.#monitors) monitor.disable();
  }

  /** One heartbeat (the timer's; tests call it directly). */
  beat(): void {
    const now = this.#now();
    const late = now - this.#last - this.#heartbeatMs;
    this.#last = now;
    if (late > this.#heartbeatMs) this.#stalls.push([now, late]);
    const monitor = this.#monitors[this.#turn];
    this.#delays.push([now, monitor.max / 1e6]);
    monitor.reset();
    this.#turn = this.#turn === 0 ? 1 : 0;
    this.#prune(now);
  }

  /**
   * The longest the event loop was late to a `LAG_RESOLUTION_MS` timer within the last 10 s, in
   * ms, as perf_hooks samples it: lag well under the 500 ms heartbeat, which stalls do not show.
   */
  lagMs(): number {
    this.#prune(this.#now());
    const delays = [...this.#monitors.map((monitor) => monitor.max / 1e6), ...this.#delays.map(([, ms]) => ms)];
    // A monitor's delay is the time between two of its samples; beyond the resolution is lag.
    return Math.max(0, Math.max(...delays) - LAG_RESOLUTION_MS);
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
    while (this.#delays.length > 0 && (this.#delays[0] as [number, number])[0] < now - WINDOW_MS) this.#delays.shift();
  }
}
