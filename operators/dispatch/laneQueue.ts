import { asyncScheduler, type SchedulerLike, type Subscription, type Unsubscribable } from "rxjs";

export type QueueMode = "collect" | "followup" | "interrupt";
export type DropPolicy = "old" | "new" | "summarize";

/**
 * How much one `collect` batch may hold (OpenAB's `max_buffered_messages` and `max_batch_tokens`):
 * waiting values are taken oldest first while the batch has fewer than `items` and adding the next
 * keeps it within `tokens`; the first value is always taken, so one oversize value still runs. What
 * is left waits, in order, for the next batch, which starts as soon as this one is done.
 */
export interface BatchBound<T> {
  readonly items: number;
  readonly tokens: number;
  readonly tokensOf: (value: T) => number;
}

/** What one turn runs: the values themselves, plus one-line summaries of values the cap dropped. */
export interface LaneBatch<T> {
  readonly items: readonly T[];
  readonly summary: readonly string[];
}

export interface SessionLanesOptions<T> {
  /** What happens to values that arrive while their key is busy. */
  readonly mode: QueueMode;
  /** Quiet time after the last queued arrival before the queue is drained. */
  readonly quietMs: number;
  /** Most values waiting per key; past it the drop policy applies. */
  readonly cap: number;
  readonly drop: DropPolicy;
  /** One summary line for a value dropped under `summarize`. */
  readonly describe: (value: T) => string;
  /** Values that will never run (dropped by the cap, or superseded under `interrupt`): settle them. */
  readonly onDropped: (values: readonly T[], key: string) => void;
  /** Under `interrupt`: a value arrived for a busy key; stop the running work. */
  readonly onInterrupt?: (key: string) => void;
  /** Under `collect`: the most one batch holds; absent, a batch takes everything waiting. */
  readonly bound?: BatchBound<T>;
  readonly scheduler?: SchedulerLike;
}

/**
 * One batch's work on callbacks: calls `done` once when it is over — within the call, or later —
 * and returns what cancels it while it still runs (`undefined` when it was over within the call).
 */
export type LaneWork<T> = (batch: LaneBatch<T>, key: string, done: () => void) => Unsubscribable | undefined;

interface Lane<T> {
  readonly key: string;
  /** While this lane's first work runs synchronously outside the map: the lane opening around it, if any (cleared after). */
  outer: Lane<T> | undefined;
  running: boolean;
  /** What cancels the running batch, while one runs past its call. */
  work: Unsubscribable | undefined;
  /** Values waiting; made when the first one waits (most lanes never have one). */
  queue: T[] | undefined;
  summary: readonly string[];
  lastArrival: number;
  timer: Subscription | undefined;
  interrupted: boolean;
}

/** The summary of a batch the cap dropped nothing from: shared, never written. */
const NO_SUMMARY: readonly string[] = Object.freeze([]);

/**
 * The lanes of `sessionLanes` on callbacks, for a caller that pushes values and runs batches
 * without a stream per batch (the worker: one call per event). One unit of work at a time per key,
 * with OpenClaw's busy-session queue: a value for an idle key runs at once; values that arrive while
 * the key is busy wait, and once the running work is done and no new value arrived for `quietMs`,
 * `collect` runs them all as one batch, `followup` runs them one batch each in order, `interrupt`
 * runs only the newest (and asks the running work to stop when it arrives). At most `cap` values
 * wait; `new` refuses the incoming one, `old` drops the oldest, `summarize` drops the oldest but
 * keeps a summary line. Under `collect`, `bound` caps a batch (OpenAB's batching).
 *
 * A lane exists only while its key is busy, and one whose work is over within the call never
 * enters the map: an idle key costs a lane record and its batch, nothing else. The quiet window is
 * a per-key timer on the scheduler.
 */
export class LaneQueue<T> {
  readonly #keyOf: (value: T) => string;
  readonly #work: LaneWork<T>;
  readonly #options: SessionLanesOptions<T>;
  readonly #scheduler: SchedulerLike;
  readonly #lanes = new Map<string, Lane<T>>();
  /**
   * A lane whose first value is running synchronously, before it is put in `#lanes`: most work on
   * an idle key (an instant turn) is over before `#run` returns, and then the lane never enters
   * the map at all. A value of the same key arriving meanwhile finds it here.
   */
  #opening: Lane<T> | undefined;
  #ended = false;
  #onIdle: (() => void) | undefined;
  #closed = false;

  constructor(keyOf: (value: T) => string, work: LaneWork<T>, options: SessionLanesOptions<T>) {
    this.#keyOf = keyOf;
    this.#work = work;
    this.#options = options;
    this.#scheduler = options.scheduler ?? asyncScheduler;
  }

  /** Keys with work running or values waiting. */
  get busy(): number {
    let opening = 0;
    for (let lane = this.#opening; lane !== undefined; lane = lane.outer) opening += 1;
    return this.#lanes.size + opening;
  }

  /** Runs `value` now, or queues it behind its key's running work. Throws what `keyOf` throws. */
  push(value: T): void {
    if (this.#closed) return;
    const key = this.#keyOf(value);
    // No lookup while every lane is idle (instant turns): hashing a fresh key is most of its cost.
    const lane = (this.#lanes.size === 0 ? undefined : this.#lanes.get(key)) ?? this.#openingLane(key);
    if (lane !== undefined) {
      this.#enqueue(key, lane, value);
      if (!lane.running) this.#drainWhenQuiet(key, lane);
      return;
    }
    // `lastArrival` is read only once a value waits, and `#enqueue` sets it then.
    const fresh: Lane<T> = { key, outer: this.#opening, running: false, work: undefined, queue: undefined, summary: NO_SUMMARY, lastArrival: 0, timer: undefined, interrupted: false };
    this.#opening = fresh;
    try {
      this.#run(key, fresh, { items: [value], summary: NO_SUMMARY });
    } finally {
      this.#opening = fresh.outer;
      fresh.outer = undefined;
    }
    // Still busy (running, or values queued behind it, or a quiet-window timer): it needs its place in the map.
    if (fresh.running || (fresh.queue !== undefined && fresh.queue.length > 0) || fresh.summary.length > 0 || fresh.timer !== undefined) this.#lanes.set(key, fresh);
    else this.#idleIfEnded();
  }

  /**
   * No more values will come: waiting values run without their quiet window, and `onIdle` is
   * called once no lane is busy (at once when none is).
   */
  end(onIdle: () => void): void {
    this.#ended = true;
    this.#onIdle = onIdle;
    for (const [key, lane] of [...this.#lanes]) if (!lane.running) this.#drainWhenQuiet(key, lane);
    this.#idleIfEnded();
  }

  /** Cancels every timer and running work; nothing runs or is reported after this. */
  close(): void {
    this.#closed = true;
    this.#onIdle = undefined;
    for (const lane of this.#lanes.values()) {
      lane.timer?.unsubscribe();
      lane.work?.unsubscribe();
    }
    this.#lanes.clear();
  }

  #openingLane(key: string): Lane<T> | undefined {
    for (let lane = this.#opening; lane !== undefined; lane = lane.outer) if (lane.key === key) return lane;
    return undefined;
  }

  #idleIfEnded(): void {
    if (!this.#ended || this.#lanes.size > 0 || this.#opening !== undefined) return;
    const onIdle = this.#onIdle;
    this.#onIdle = undefined;
    onIdle?.();
  }

  #run(key: string, lane: Lane<T>, batch: LaneBatch<T>): void {
    lane.running = true;
    lane.interrupted = false;
    let over = false;
    const work = this.#work(batch, key, () => {
      if (over || this.#closed) return; // once per batch
      over = true;
      lane.work = undefined;
      lane.running = false;
      this.#drainWhenQuiet(key, lane);
    });
    // Work over within the call is not kept: only work still running is cancelled by `close`.
    if (!over) lane.work = work;
  }

  #drainWhenQuiet(key: string, lane: Lane<T>): void {
    lane.timer?.unsubscribe();
    lane.timer = undefined;
    if (lane.running) return;
    const queue = lane.queue;
    if ((queue === undefined || queue.length === 0) && lane.summary.length === 0) {
      if (this.#openingLane(key) !== lane) {
        this.#lanes.delete(key);
        this.#idleIfEnded();
      }
      return;
    }
    const wait = lane.lastArrival + this.#options.quietMs - this.#scheduler.now();
    if (wait > 0 && !this.#ended) {
      lane.timer = this.#scheduler.schedule(() => this.#drainWhenQuiet(key, lane), wait);
      return;
    }
    const items = queue === undefined ? [] : queue.splice(0, this.#takenCount(queue));
    const summary = lane.summary;
    lane.summary = NO_SUMMARY;
    this.#run(key, lane, { items, summary });
  }

  /** How many of the waiting values the next batch takes. */
  #takenCount(queue: readonly T[]): number {
    const { mode, bound } = this.#options;
    if (mode === "followup") return 1;
    if (bound === undefined || mode !== "collect") return queue.length;
    let tokens = bound.tokensOf(queue[0] as T);
    let count = 1;
    for (; count < queue.length && count < bound.items; count++) {
      tokens += bound.tokensOf(queue[count] as T);
      if (tokens > bound.tokens) break;
    }
    return count;
  }

  #enqueue(key: string, lane: Lane<T>, value: T): void {
    const options = this.#options;
    lane.lastArrival = this.#scheduler.now();
    const queue = (lane.queue ??= []);
    if (options.mode === "interrupt") {
      if (queue.length > 0) options.onDropped(queue.splice(0), key);
      queue.push(value);
      if (!lane.interrupted) {
        lane.interrupted = true;
        options.onInterrupt?.(key);
      }
      return;
    }
    if (queue.length >= options.cap) {
      if (options.drop === "new") {
        options.onDropped([value], key);
        return;
      }
      const [oldest] = queue.splice(0, 1) as [T];
      if (options.drop === "summarize") lane.summary = [...lane.summary, options.describe(oldest)];
      options.onDropped([oldest], key);
    }
    queue.push(value);
  }
}
