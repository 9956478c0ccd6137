import { firstValueFrom, from, timeout } from "rxjs";
import type { SchedulerLike, Subscription } from "rxjs";
import { isRevisionConflict, type LeaseBucket } from "./leaseBucket.js";

/** Why a lease stopped being held without a release: a renew hit another revision, the bucket shows another holder or none, or no renew succeeded within half the TTL. */
export type LostReason = "conflict" | "taken" | "expired" | "renew_overdue";

export interface HeldLeasesOptions {
  readonly kv: LeaseBucket;
  /** What each key holds while leased: the holder's id. */
  readonly holder: string;
  /** The bucket's TTL. */
  readonly ttlMs: number;
  readonly scheduler: SchedulerLike;
  /** The keys held now, after every change (acquired, lost, released) and every deadline check. */
  readonly changed: (held: ReadonlySet<string>) => void;
  /** A key was created for this holder. */
  readonly acquired?: (key: string) => void;
  /** A key stopped being held without a release; `changed` follows. */
  readonly lost: (key: string, reason: LostReason) => void;
}

interface Held {
  readonly revision: number;
  /** When the create or update that produced `revision` was sent: the bucket's TTL runs from no earlier. */
  readonly renewedAt: number;
}

/**
 * The leases one holder has in a NATS KV bucket whose TTL expires them (architecture §4): `create`
 * acquires a free key, `update` at the held revision renews, `delete` at it releases, and a holder
 * that dies loses its keys with the TTL. A key not renewed within half the TTL is dropped here at
 * once, well before the bucket can free it for anyone else: whoever stops at `lost` never overlaps
 * the next holder. Partitions (`PartitionLeases`) and one-per-bot platform receivers
 * (`ReceiverLease`) are both held through it.
 */
export class HeldLeases {
  readonly #kv: LeaseBucket;
  readonly #holder: string;
  readonly #ttlMs: number;
  readonly #scheduler: SchedulerLike;
  readonly #options: HeldLeasesOptions;
  readonly #held = new Map<string, Held>();
  #deadline: Subscription | undefined;
  #closed = false;

  constructor(options: HeldLeasesOptions) {
    this.#kv = options.kv;
    this.#holder = options.holder;
    this.#ttlMs = options.ttlMs;
    this.#scheduler = options.scheduler;
    this.#options = options;
  }

  get size(): number {
    return this.#held.size;
  }

  has(key: string): boolean {
    return this.#held.has(key);
  }

  keys(): string[] {
    return [...this.#held.keys()];
  }

  /**
   * Creates each key; a conflict means someone holds it. Rejects with the first other failure once
   * every create answered (those acquired stay held). A create answered too late to trust is
   * dropped at once as overdue; the bucket keeps it until the TTL, a stale lease of this holder.
   */
  async acquire(keys: readonly string[]): Promise<void> {
    const failures: unknown[] = [];
    await Promise.all(
      keys.map(async (key) => {
        const sentAt = this.#scheduler.now();
        try {
          const revision = await this.within(this.#kv.create(key, this.#holder));
          this.#held.set(key, { revision, renewedAt: sentAt });
          this.#options.acquired?.(key);
        } catch (err) {
          if (!isRevisionConflict(err)) failures.push(err);
        }
      }),
    );
    this.refresh();
    if (failures.length > 0) throw failures[0];
  }

  /** Renews every held key at its revision; a conflict loses that key now. Rejects with the first other failure. */
  async renew(): Promise<void> {
    const failures: unknown[] = [];
    await Promise.all(
      [...this.#held].map(async ([key, lease]) => {
        const sentAt = this.#scheduler.now();
        try {
          const revision = await this.within(this.#kv.update(key, this.#holder, lease.revision));
          if (this.#held.get(key) === lease) this.#held.set(key, { revision, renewedAt: sentAt });
        } catch (err) {
          if (!isRevisionConflict(err)) failures.push(err);
          else if (this.#held.get(key) === lease) this.lose(key, "conflict");
        }
      }),
    );
    this.refresh();
    if (failures.length > 0) throw failures[0];
  }

  /** Stops holding `key` without touching the bucket (call `refresh` after). */
  lose(key: string, reason: LostReason): void {
    if (!this.#held.delete(key)) return;
    this.#options.lost(key, reason);
  }

  /**
   * Stops holding `key`, then deletes it at the held revision: no instant where another holder has
   * it while this one does. Resolves whether the key was deleted: false when it was not held, or
   * not ours any more (a conflict, no failure).
   */
  async release(key: string): Promise<boolean> {
    const lease = this.#held.get(key);
    if (lease === undefined) return false;
    this.#held.delete(key);
    this.refresh();
    return this.deleteAt(key, lease.revision);
  }

  /** Deletes `key` if it is still at `revision` (a stale lease of this holder); resolves whether it was. */
  async deleteAt(key: string, revision: number): Promise<boolean> {
    try {
      await this.within(this.#kv.delete(key, { previousSeq: revision }));
      return true;
    } catch (err) {
      if (!isRevisionConflict(err)) throw err;
      return false;
    }
  }

  /** Drops overdue keys, reports the held set, and arms a timer for the next deadline. */
  refresh(): void {
    const now = this.#scheduler.now();
    const halfTtl = this.#ttlMs / 2;
    for (const [key, lease] of this.#held) {
      if (now - lease.renewedAt >= halfTtl) this.lose(key, "renew_overdue");
    }
    this.#options.changed(new Set(this.#held.keys()));

    this.#deadline?.unsubscribe();
    this.#deadline = undefined;
    if (this.#held.size === 0 || this.#closed) return;
    const earliest = Math.min(...[...this.#held.values()].map((lease) => lease.renewedAt));
    this.#deadline = this.#scheduler.schedule(() => this.refresh(), Math.max(0, earliest + halfTtl - now));
  }

  /** No more deadline checks (the owner has stopped). */
  close(): void {
    this.#closed = true;
    this.#deadline?.unsubscribe();
    this.#deadline = undefined;
  }

  /** A KV call bounded by a third of the TTL, on the scheduler's clock: a stalled NATS fails the call, not the next ones. */
  within<T>(operation: Promise<T>): Promise<T> {
    return firstValueFrom(from(operation).pipe(timeout({ first: this.#ttlMs / 3, scheduler: this.#scheduler })));
  }
}
