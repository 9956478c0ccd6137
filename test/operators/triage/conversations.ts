import type { Observable } from "rxjs";
import { admit } from "../../../operators/triage/admit.js";
import { DISABLED_TRIAGE, type TriageSettings } from "../../../operators/triage/triageSettings.js";
import type { TriageState } from "../../../operators/triage/triageState.js";
import type { TriageVerdict } from "../../../operators/triage/triageVerdict.js";
import { MemoryTriageStore } from "../../../src/state/triageStore.js";

/** Epoch ms of an ISO-8601 instant (`2026-08-25T12:00:00Z`). */
export const at = (iso: string): number => {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new RangeError(`bad instant ${iso}`);
  return ms;
};

export const SECOND = 1000;

/** Upstream's test `settings()`: enabled, UTC, every limit off; override what a test cares about. */
export const enabled = (overrides: Partial<TriageSettings> = {}): TriageSettings => ({ ...DISABLED_TRIAGE, enabled: true, ...overrides });

/** The value of an Observable that emits synchronously (the memory store's). */
export function sync<T>(observable: Observable<T>): T {
  let result: { value: T } | undefined;
  observable.subscribe({
    next: (value) => {
      result = { value };
    },
  });
  if (result === undefined) throw new Error("the observable did not emit synchronously");
  return result.value;
}

/**
 * Upstream's `TriageState` (a map of conversations behind one lock) as turnstream composes it:
 * `admit` over a `MemoryTriageStore`, one read and one compare-and-set per call.
 */
export class Conversations {
  readonly store = new MemoryTriageStore();

  admit(key: string, eventId: string, settings: TriageSettings, nowMs: number): TriageVerdict {
    const entry = sync(this.store.read(key));
    const { verdict, state } = admit(entry?.state, eventId, settings, nowMs);
    // Upstream tracks nothing when disabled and creates the conversation on any enabled call.
    if (settings.enabled && !sync(this.store.compareAndSet(key, state, entry?.revision))) throw new Error("unexpected conflict");
    return verdict;
  }

  state(key: string): TriageState | undefined {
    return sync(this.store.read(key))?.state;
  }

  sweep(cutoffMs: number): number {
    return sync(this.store.sweep(cutoffMs));
  }

  get tracked(): number {
    return this.store.size;
  }
}
