import { asyncScheduler, type SchedulerLike, type Subscription } from "rxjs";
import { poolAdmission, type IdleSession } from "../../../operators/dispatch/poolAdmission.js";
import { PoolClosedError, PoolWaitTimeoutError, SessionWaitCancelledError } from "../errors.js";

export interface SessionSlotsOptions {
  readonly maxSessions: number;
  /** How long a turn may wait for a slot before it fails (the turn's hard timeout). */
  readonly waitTimeoutMs: number;
  /** Sessions nobody holds right now: the ones a waiter may suspend. */
  readonly idle: () => readonly IdleSession[];
  /** Suspends an idle session chosen to make room (removing it from `idle` at once); its slot is free once this settles. */
  readonly evict: (key: string) => Promise<void>;
  readonly scheduler?: SchedulerLike;
}

interface Waiter {
  readonly key: string;
  readonly since: number;
  readonly granted: () => void;
  readonly failed: (err: Error) => void;
  timer?: Subscription;
}

/**
 * The pool's `max_sessions` slots — one per live session, session being started, or agent still
 * being closed — and the turns waiting for one, in one FIFO across conversations. A slot is handed
 * to the oldest waiter the moment one is free or an idle session can be suspended for it; a
 * newcomer never overtakes a waiter. A waiter leaves at its timeout, on `cancel`, on its abort
 * signal, or when the pool closes.
 */
export class SessionSlots {
  readonly #options: SessionSlotsOptions;
  readonly #scheduler: SchedulerLike;
  readonly #waiters: Waiter[] = [];
  #used = 0;
  #closing = 0;
  #closed = false;

  constructor(options: SessionSlotsOptions) {
    this.#options = options;
    this.#scheduler = options.scheduler ?? asyncScheduler;
  }

  /** Slots taken. Never above `maxSessions`. */
  get used(): number {
    return this.#used;
  }

  /** Turns waiting for a slot. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /**
   * Resolves once `key` holds a slot (the caller then owes one `release` or `freeWhen`); rejects
   * with `PoolWaitTimeoutError` after `waitTimeoutMs`, `SessionWaitCancelledError` on `cancel(key)`,
   * the signal's reason when it aborts, `PoolClosedError` when the pool closes.
   */
  acquire(key: string, signal?: AbortSignal): Promise<void> {
    if (this.#closed) return Promise.reject(new PoolClosedError());
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => this.#leave(waiter, signal?.reason instanceof Error ? signal.reason : new SessionWaitCancelledError());
      const waiter: Waiter = {
        key,
        since: this.#scheduler.now(),
        granted: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        failed: (err) => {
          signal?.removeEventListener("abort", onAbort);
          reject(err);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiters.push(waiter);
      this.#pump();
      // Still waiting: it gives up after the timeout.
      if (this.#waiters.includes(waiter)) {
        waiter.timer = this.#scheduler.schedule(
          () => this.#leave(waiter, new PoolWaitTimeoutError(this.#options.maxSessions, this.#scheduler.now() - waiter.since)),
          this.#options.waitTimeoutMs,
        );
      }
    });
  }

  /** Gives back a slot whose session never came to be (its agent failed to start). */
  release(): void {
    this.#used -= 1;
    this.#pump();
  }

  /** Gives back a slot once its session's agent is gone (`closed` settles). */
  freeWhen(closed: Promise<unknown>): void {
    this.#closing += 1;
    void closed
      .catch(() => undefined)
      .finally(() => {
        this.#closing -= 1;
        this.release();
      });
  }

  /** A session turned idle: the oldest waiter may suspend it now. */
  sessionIdle(): void {
    this.#pump();
  }

  /** Whether `key` waits for a slot. */
  isWaiting(key: string): boolean {
    return this.#waiters.some((waiter) => waiter.key === key);
  }

  /** Calls off `key`'s wait (`/cancel`); false when it does not wait. */
  cancel(key: string): boolean {
    const waiter = this.#waiters.find((candidate) => candidate.key === key);
    if (waiter === undefined) return false;
    this.#leave(waiter, new SessionWaitCancelledError());
    return true;
  }

  /** Fails every waiter with `PoolClosedError` and takes no new ones. */
  close(): void {
    this.#closed = true;
    for (const waiter of [...this.#waiters]) this.#leave(waiter, new PoolClosedError());
  }

  #leave(waiter: Waiter, err: Error): void {
    const index = this.#waiters.indexOf(waiter);
    if (index === -1) return;
    this.#waiters.splice(index, 1);
    waiter.timer?.unsubscribe();
    waiter.failed(err);
  }

  #pump(): void {
    if (this.#waiters.length === 0 || this.#closed) return;
    const { grant, evict } = poolAdmission({
      maxSessions: this.#options.maxSessions,
      used: this.#used,
      closing: this.#closing,
      waiting: this.#waiters.length,
      idle: this.#options.idle(),
    });
    for (const waiter of this.#waiters.splice(0, grant)) {
      this.#used += 1;
      waiter.timer?.unsubscribe();
      waiter.granted();
    }
    for (const key of evict) this.freeWhen(this.#evict(key));
  }

  #evict(key: string): Promise<void> {
    try {
      return this.#options.evict(key);
    } catch (err) {
      return Promise.reject(err);
    }
  }
}
