import { Observable } from "rxjs";

/**
 * One KV round trip as a cold Observable: `run` starts on each subscription, its value is emitted
 * and completes; a result after unsubscribing is dropped. `defer(async …)` does the same with two
 * Observables (defer, then `from` of the promise); this runs per event (the ledger's `complete`).
 */
export function kvOperation<T>(run: () => Promise<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    run().then(
      (value) => {
        subscriber.next(value);
        subscriber.complete();
      },
      (err: unknown) => subscriber.error(err),
    );
  });
}

/** A KV write with nothing to report, as the storage ports want it: completes once done, emits nothing (no `ignoreElements` per event). */
export function kvWrite(run: () => Promise<unknown>): Observable<never> {
  return new Observable<never>((subscriber) => {
    run().then(
      () => subscriber.complete(),
      (err: unknown) => subscriber.error(err),
    );
  });
}
