import { asyncScheduler, Observable, of, type SchedulerLike, type Subscriber } from "rxjs";
import type { GatewayEvent } from "../ingress/gatewayEvent.js";
import { admit } from "./admit.js";
import { TriageConflictError } from "./triageConflictError.js";
import { triageKey } from "./triageKey.js";
import type { TriageSettings } from "./triageSettings.js";
import { EMPTY_TRIAGE_STATE, sameTriageState } from "./triageState.js";
import type { TriageEntry, TriageStore } from "./triageStore.js";
import { type TriageVerdict, WAKE } from "./triageVerdict.js";

export interface TriageEventOptions {
  readonly settings: TriageSettings;
  readonly store: TriageStore;
  /** The clock (`scheduler.now()`); defaults to `asyncScheduler`, virtual inside `TestScheduler.run`. */
  readonly scheduler?: SchedulerLike;
  /** Evaluations (read → admit → compareAndSet) before giving up; default `TRIAGE_MAX_ATTEMPTS`. */
  readonly maxAttempts?: number;
}

/** Conflicts come only from other workers writing the same conversation; ten in a row is contention, not bad luck. */
export const TRIAGE_MAX_ATTEMPTS = 10;

/**
 * One event's verdict, for a caller that already runs a conversation's events one at a time (the
 * broker's session lane; `triage` serializes by `triageKey` itself and calls this):
 *
 * - `proactive !== true` (a human message), or triage disabled → wake; the store is not touched.
 * - Otherwise read the conversation, `admit` at `scheduler.now()`, then compareAndSet the new
 *   state (skipped when nothing changed). A conflict (another writer) re-reads and re-decides.
 *
 * Errors: a store error, or `maxAttempts` conflicts in a row (`TriageConflictError`). No verdict
 * is invented for an event that could not be decided.
 */
export function triageEvent(event: GatewayEvent, options: TriageEventOptions): Observable<TriageVerdict> {
  if (event.proactive !== true || !options.settings.enabled) return of(WAKE);
  return new Observable<TriageVerdict>((subscriber) => new TriageDecision(event, options, subscriber).evaluate(1));
}

/**
 * One subscription's evaluations, hand-written rather than `read → concatMap → compareAndSet →
 * concatMap` (triage runs for every proactive event): each store answer goes straight to the next
 * step, and each step's subscription is added to `subscriber`, so unsubscribing cancels the one
 * in flight. A store Observable that emits more than its one value has the rest ignored; one that
 * completes without a value leaves the event undecided (the stream completes, as an empty read
 * did through `concatMap`).
 */
class TriageDecision {
  readonly #event: GatewayEvent;
  readonly #options: TriageEventOptions;
  readonly #subscriber: Subscriber<TriageVerdict>;
  readonly #key: string;
  readonly #scheduler: SchedulerLike;
  readonly #maxAttempts: number;

  constructor(event: GatewayEvent, options: TriageEventOptions, subscriber: Subscriber<TriageVerdict>) {
    this.#event = event;
    this.#options = options;
    this.#subscriber = subscriber;
    this.#key = triageKey(event);
    this.#scheduler = options.scheduler ?? asyncScheduler;
    this.#maxAttempts = options.maxAttempts ?? TRIAGE_MAX_ATTEMPTS;
  }

  /** Read → admit → compareAndSet (skipped when nothing changed); a lost compareAndSet evaluates again. */
  evaluate(attempt: number): void {
    let answered = false;
    this.#subscriber.add(
      this.#options.store.read(this.#key).subscribe({
        next: (entry) => {
          if (answered) return;
          answered = true;
          this.#admit(entry, attempt);
        },
        error: (err: unknown) => this.#subscriber.error(err),
        complete: () => {
          if (!answered) this.#subscriber.complete();
        },
      }),
    );
  }

  #admit(entry: TriageEntry | undefined, attempt: number): void {
    const before = entry?.state ?? EMPTY_TRIAGE_STATE;
    let admitted: ReturnType<typeof admit>;
    try {
      admitted = admit(before, this.#event.event_id, this.#options.settings, this.#scheduler.now());
    } catch (err) {
      this.#subscriber.error(err);
      return;
    }
    const { verdict, state } = admitted;
    if (sameTriageState(before, state)) {
      this.#decided(verdict);
      return;
    }
    let answered = false;
    this.#subscriber.add(
      this.#options.store.compareAndSet(this.#key, state, entry?.revision).subscribe({
        next: (written) => {
          if (answered) return;
          answered = true;
          if (written) this.#decided(verdict);
          else if (attempt >= this.#maxAttempts) this.#subscriber.error(new TriageConflictError(this.#key, attempt));
          else this.evaluate(attempt + 1);
        },
        error: (err: unknown) => this.#subscriber.error(err),
        complete: () => {
          if (!answered) this.#subscriber.complete();
        },
      }),
    );
  }

  #decided(verdict: TriageVerdict): void {
    this.#subscriber.next(verdict);
    this.#subscriber.complete();
  }
}
