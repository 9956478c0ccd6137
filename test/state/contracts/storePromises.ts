import { firstValueFrom, lastValueFrom, type Observable, toArray } from "rxjs";
import type { Claim, DedupeStore } from "../../../src/state/dedupeStore.js";
import type { SessionStore } from "../../../src/state/sessionStore.js";

/**
 * The stores' Observable ports seen as promises, for tests that await one operation after another.
 * Each call subscribes at once, so calls made together start in call order, as a caller's would.
 */
export const valueOf = <T>(operation: Observable<T>): Promise<T> => firstValueFrom(operation);
export const doneOf = (operation: Observable<never>): Promise<undefined> => lastValueFrom(operation, { defaultValue: undefined });
/** Everything an operation emits before it completes: one value, or none for a void operation. */
export const emitted = <T>(operation: Observable<T>): Promise<T[]> => lastValueFrom(operation.pipe(toArray()));

export interface SessionsAsPromises {
  get(key: string): Promise<string | undefined>;
  set(key: string, sessionId: string): Promise<undefined>;
  delete(key: string): Promise<undefined>;
}

export const sessionsAsPromises = (store: SessionStore): SessionsAsPromises => ({
  get: (key) => valueOf(store.get(key)),
  set: (key, sessionId) => doneOf(store.set(key, sessionId)),
  delete: (key) => doneOf(store.delete(key)),
});

export interface DedupeAsPromises {
  claim(key: string, owner: string, nowMs: number): Promise<Claim>;
  commit(key: string, nowMs: number): Promise<undefined>;
  release(key: string, owner: string): Promise<undefined>;
}

export const dedupeAsPromises = (store: DedupeStore): DedupeAsPromises => ({
  claim: (key, owner, nowMs) => valueOf(store.claim(key, owner, nowMs)),
  commit: (key, nowMs) => doneOf(store.commit(key, nowMs)),
  release: (key, owner) => doneOf(store.release(key, owner)),
});
