import { defer, EMPTY, of, type Observable } from "rxjs";

/**
 * The latest minute each cron job's firing was queued for, by any process (`[cron] catch_up`): a
 * process that starts after every process was down finds the minutes nobody fired. Keys are the
 * jobs' `cronJobKey`s, values the minute's start (ms since the epoch). Cold, as every state port.
 */
export interface CronMarks {
  /** The latest minute recorded for `job`; `undefined` when none is. */
  lastFired(job: string): Observable<number | undefined>;
  /** Records that `job` fired for `minute`; a mark never moves back (an older minute changes nothing). */
  fired(job: string, minute: number): Observable<never>;
  /** Where the marks are kept, for the start-up log: `memory`, `file` or `nats`. */
  readonly kind: "memory" | "file" | "nats";
}

export interface MemoryCronMarksOptions {
  /** Marks to start from (a file's). */
  readonly initial?: ReadonlyMap<string, number>;
  /** Told, with every mark, each time one moved on. */
  readonly changed?: (marks: ReadonlyMap<string, number>) => void;
  readonly kind?: CronMarks["kind"];
}

/** Marks in this process's memory: for a broker that keeps no state they die with it; `FileCronMarks` writes them out. */
export class MemoryCronMarks implements CronMarks {
  readonly kind: CronMarks["kind"];
  readonly #marks: Map<string, number>;
  readonly #changed: ((marks: ReadonlyMap<string, number>) => void) | undefined;

  constructor(options: MemoryCronMarksOptions = {}) {
    this.kind = options.kind ?? "memory";
    this.#marks = new Map(options.initial);
    this.#changed = options.changed;
  }

  lastFired(job: string): Observable<number | undefined> {
    return defer(() => of(this.#marks.get(job)));
  }

  fired(job: string, minute: number): Observable<never> {
    return defer(() => {
      if ((this.#marks.get(job) ?? -Infinity) < minute) {
        this.#marks.set(job, minute);
        this.#changed?.(this.#marks);
      }
      return EMPTY;
    });
  }
}
