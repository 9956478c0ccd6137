import type { KV } from "@nats-io/kv";
import { catchError, defer, ignoreElements, throwError, type Observable } from "rxjs";
import type { CronMarks } from "../cronMarks.js";
import { StateStoreError } from "../errors.js";
import { kvKey } from "./kvKey.js";
import { isCasConflict, liveEntry } from "./storedRecord.js";

/** Compare-and-set attempts before a mark is left to the other writers (they wrote a minute as late). */
const ATTEMPTS = 5;

/**
 * Cron marks in a NATS KV bucket (`<prefix>_cron`, no TTL), shared by every process that holds
 * `[cron]`: one key per job (`kvKey(job)`), its value the minute as decimal text. A write is a
 * compare-and-set that never moves a mark back, so processes firing the same minute, or a slow one
 * firing an older minute, leave the latest.
 */
export class KvCronMarks implements CronMarks {
  readonly kind: CronMarks["kind"] = "nats";
  readonly #kv: KV;

  constructor(kv: KV) {
    this.#kv = kv;
  }

  lastFired(job: string): Observable<number | undefined> {
    return this.#io("get", job, async () => minuteOf((await liveEntry(this.#kv, kvKey(job)))?.string()));
  }

  fired(job: string, minute: number): Observable<never> {
    return this.#io("set", job, async () => {
      const key = kvKey(job);
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const entry = await liveEntry(this.#kv, key);
        const stored = minuteOf(entry?.string());
        if (stored !== undefined && stored >= minute) return;
        try {
          if (entry === undefined) await this.#kv.create(key, String(minute));
          else await this.#kv.update(key, String(minute), entry.revision);
          return;
        } catch (err) {
          if (!isCasConflict(err)) throw err;
        }
      }
    }).pipe(ignoreElements());
  }

  #io<T>(operation: "get" | "set", job: string, work: () => Promise<T>): Observable<T> {
    return defer(work).pipe(catchError((err: unknown) => throwError(() => new StateStoreError("cron", operation, job, { cause: err }))));
  }
}

function minuteOf(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,16}$/.test(text)) return undefined;
  return Number(text);
}
