import { asyncScheduler, from, Observable, Subscription, type ObservableInput, type OperatorFunction, type SchedulerLike } from "rxjs";

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

interface Lane<T> {
  readonly key: string;
  /** While this lane's first work runs synchronously outside the map: the lane opening around it, if any (cleared after). */
  outer: Lane<T> | undefined;
  running: boolean;
  readonly queue: T[];
  summary: readonly string[];
  lastArrival: number;
  timer: Subscription | undefined;
  interrupted: boolean;
}

/** The summary of a batch the cap dropped nothing from: shared, never written. */
const NO_SUMMARY: readonly string[] = Object.freeze([]);

/**
 * One unit of work at a time per key (as `serializeByKey`), with OpenClaw's busy-session queue:
 * a value for an idle key runs at once; values that arrive while the key is busy wait, and once
 * the running work is done and no new value arrived for `quietMs`, `collect` runs them all as one
 * batch, `followup` runs them one batch each in order, `interrupt` runs only the newest (and asks
 * the running work to stop when it arrives). At most `cap` values wait; `new` refuses the
 * incoming one, `old` drops the oldest, `summarize` drops the oldest but keeps a summary line.
 * Under `collect`, `bound` caps a batch (OpenAB's batching); the rest runs as the next batch.
 *
 * Hand-written like `serializeByKey`: lanes are removed only when idle, and the quiet window is a
 * per-key timer on the scheduler.
 */
export function sessionLanes<T, R>(
  keyOf: (value: T) => string,
  work: (batch: LaneBatch<T>, key: string) => ObservableInput<R>,
  options: SessionLanesOptions<T>,
): OperatorFunction<T, R> {
  const scheduler = options.scheduler ?? asyncScheduler;
  return (source) =>
    new Observable<R>((subscriber) => {
      const lanes = new Map<string, Lane<T>>();
      /**
       * A lane whose first value is running synchronously, before it is put in `lanes`: most work
       * on an idle key (an instant turn) is over before `run` returns, and then the lane never
       * enters the map at all. A value of the same key arriving meanwhile finds it here.
       */
      let opening: Lane<T> | undefined;
      const openingLane = (key: string): Lane<T> | undefined => {
        for (let lane = opening; lane !== undefined; lane = lane.outer) if (lane.key === key) return lane;
        return undefined;
      };
      const subscriptions = new Subscription();
      let sourceComplete = false;
      const forward = (result: R) => subscriber.next(result);
      const fail = (err: unknown) => subscriber.error(err);

      const finishIfDone = (): void => {
        if (sourceComplete && lanes.size === 0 && opening === undefined) subscriber.complete();
      };

      const run = (key: string, lane: Lane<T>, batch: LaneBatch<T>): void => {
        lane.running = true;
        lane.interrupted = false;
        let inner: Subscription | undefined;
        const subscription = from(work(batch, key)).subscribe({
          next: forward,
          error: fail,
          complete: () => {
            if (inner !== undefined) subscriptions.remove(inner);
            lane.running = false;
            drainWhenQuiet(key, lane);
          },
        });
        // Work that finished synchronously is not kept: only work still running is cancelled on unsubscribe.
        if (!subscription.closed) {
          inner = subscription;
          subscriptions.add(subscription);
        }
      };

      const drainWhenQuiet = (key: string, lane: Lane<T>): void => {
        lane.timer?.unsubscribe();
        lane.timer = undefined;
        if (lane.running) return;
        if (lane.queue.length === 0 && lane.summary.length === 0) {
          if (openingLane(key) !== lane) {
            lanes.delete(key);
            finishIfDone();
          }
          return;
        }
        const wait = lane.lastArrival + options.quietMs - scheduler.now();
        if (wait > 0 && !sourceComplete) {
          lane.timer = scheduler.schedule(() => drainWhenQuiet(key, lane), wait);
          return;
        }
        const items = lane.queue.splice(0, takenCount(lane.queue));
        const summary = lane.summary;
        lane.summary = NO_SUMMARY;
        run(key, lane, { items, summary });
      };

      /** How many of the waiting values the next batch takes. */
      const takenCount = (queue: readonly T[]): number => {
        if (options.mode === "followup") return 1;
        const { bound } = options;
        if (bound === undefined || options.mode !== "collect") return queue.length;
        let tokens = bound.tokensOf(queue[0] as T);
        let count = 1;
        for (; count < queue.length && count < bound.items; count++) {
          tokens += bound.tokensOf(queue[count] as T);
          if (tokens > bound.tokens) break;
        }
        return count;
      };

      const enqueue = (key: string, lane: Lane<T>, value: T): void => {
        lane.lastArrival = scheduler.now();
        if (options.mode === "interrupt") {
          if (lane.queue.length > 0) options.onDropped(lane.queue.splice(0), key);
          lane.queue.push(value);
          if (!lane.interrupted) {
            lane.interrupted = true;
            options.onInterrupt?.(key);
          }
          return;
        }
        if (lane.queue.length >= options.cap) {
          if (options.drop === "new") {
            options.onDropped([value], key);
            return;
          }
          const [oldest] = lane.queue.splice(0, 1) as [T];
          if (options.drop === "summarize") lane.summary = [...lane.summary, options.describe(oldest)];
          options.onDropped([oldest], key);
        }
        lane.queue.push(value);
      };

      subscriptions.add(
        source.subscribe({
          next: (value) => {
            let key: string;
            try {
              key = keyOf(value);
            } catch (err) {
              subscriber.error(err);
              return;
            }
            const lane = lanes.get(key) ?? openingLane(key);
            if (lane === undefined) {
              // `lastArrival` is read only once a value waits, and `enqueue` sets it then.
              const fresh: Lane<T> = { key, outer: opening, running: false, queue: [], summary: NO_SUMMARY, lastArrival: 0, timer: undefined, interrupted: false };
              opening = fresh;
              run(key, fresh, { items: [value], summary: NO_SUMMARY });
              opening = fresh.outer;
              fresh.outer = undefined;
              // Still busy (running, or values queued behind it, or a quiet-window timer): it needs its place in the map.
              if (fresh.running || fresh.queue.length > 0 || fresh.summary.length > 0 || fresh.timer !== undefined) lanes.set(key, fresh);
              else finishIfDone();
              return;
            }
            enqueue(key, lane, value);
            if (!lane.running) drainWhenQuiet(key, lane);
          },
          error: (err: unknown) => subscriber.error(err),
          complete: () => {
            sourceComplete = true;
            for (const [key, lane] of [...lanes]) if (!lane.running) drainWhenQuiet(key, lane);
            finishIfDone();
          },
        }),
      );
      return () => {
        for (const lane of lanes.values()) lane.timer?.unsubscribe();
        subscriptions.unsubscribe();
      };
    });
}
