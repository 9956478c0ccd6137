import { distinctUntilChanged, EMPTY, map, of, retry, switchMap, timer, type Observable } from "rxjs";
import { sweepTriage, TRIAGE_SWEEP_INTERVAL_MS } from "../../operators/triage/triageSweep.js";
import type { TriageStore } from "../../operators/triage/triageStore.js";
import type { Config } from "../config/index.js";
import type { Logger } from "../log/logger.js";

/**
 * Conversations quiet for longer than anything triage remembers are dropped, by one worker: the
 * holder of partition 0. A failed sweep is logged and tried again at the next interval.
 */
export function triageSweepByLeader(store: TriageStore, ownership: Observable<ReadonlySet<number>> | undefined, triage: Config["triage"], logger: Logger): Observable<number> {
  return sweepLeader(ownership).pipe(
    switchMap((leader) =>
      leader
        ? sweepTriage(store, { ttlMs: triageMemoryMs(triage) }).pipe(
            retry({
              delay: (err: unknown) => {
                logger.warn({ reason: "sweep_failed", err }, "triage sweep failed");
                return timer(TRIAGE_SWEEP_INTERVAL_MS);
              },
            }),
          )
        : EMPTY,
    ),
  );
}

/** Emits whether this worker is the one that sweeps: it owns partition 0 (the only worker on the embedded bus). */
function sweepLeader(ownership: Observable<ReadonlySet<number>> | undefined): Observable<boolean> {
  return ownership === undefined ? of(true) : ownership.pipe(map((owned) => owned.has(0)), distinctUntilChanged());
}

/** The longest any triage rule looks back: the dedupe window, the cooldown, and a day (plus a DST hour) for the cap. */
function triageMemoryMs(triage: Config["triage"]): number {
  return Math.max(triage.dedupe_window_secs, triage.cooldown_secs, 25 * 3600) * 1000;
}
