import { asyncScheduler, BehaviorSubject, distinctUntilChanged, firstValueFrom, from, interval, timeout, TimeoutError } from "rxjs";
import type { Observable, SchedulerLike, Subscription } from "rxjs";
import { leasePlan, leaseTarget } from "../../operators/dispatch/leasePlan.js";
import type { Logger } from "../log/logger.js";
import { assertWorkerId, isRevisionConflict, partitionKey, presenceKey, readLeaseTable, type LeaseBucket, type LeaseTable } from "./leaseBucket.js";

export interface PartitionLeasesOptions {
  /** The lease bucket, opened with `openBucket(nc, subjects(prefix).buckets.leases, { ttlMs })`. */
  readonly kv: LeaseBucket;
  /** This worker's id: one KV key token (letters, digits, `_`, `-`, `=`), unique among workers. */
  readonly workerId: string;
  readonly partitions: number;
  /** The bucket's TTL. Leases renew every quarter of it and count as lost locally after half of it. */
  readonly ttlMs: number;
  readonly logger: Logger;
  /** Stops consuming a partition and resolves once its running turns finished; awaited before a release. */
  readonly drain?: (partition: number) => Promise<void>;
  /** Timers and the clock (default `asyncScheduler`). */
  readonly scheduler?: SchedulerLike;
}

type LostReason = "conflict" | "taken" | "expired" | "renew_overdue";
type ReleaseReason = "rebalance" | "shutdown";

interface HeldLease {
  readonly revision: number;
  /** When the create or update that produced `revision` was sent: the bucket's TTL runs from no earlier. */
  readonly renewedAt: number;
}

interface Release {
  readonly reason: ReleaseReason;
  drained: boolean;
}

/**
 * The partitions this worker may consume, held as leases in a NATS KV bucket (architecture §4):
 * `create` acquires, `update` at the held revision renews, the bucket TTL expires a dead worker's
 * leases. Every quarter of the TTL a tick renews, reads the table, and follows `leasePlan` towards an
 * even split over the workers present. A lease not renewed within half the TTL leaves `owned` at
 * once, so this worker stops before any other can acquire it.
 */
export class PartitionLeases {
  /**
   * The partitions held now: the current set on subscribe, then every change; completes after `stop()`.
   * A lost lease is dropped here with no drain: whoever consumes it must stop at once.
   */
  readonly owned: Observable<ReadonlySet<number>>;

  readonly #kv: LeaseBucket;
  readonly #workerId: string;
  readonly #partitions: number;
  readonly #ttlMs: number;
  readonly #log: Logger;
  readonly #drain: (partition: number) => Promise<void>;
  readonly #scheduler: SchedulerLike;

  readonly #held = new Map<number, HeldLease>();
  readonly #releasing = new Map<number, Release>();
  readonly #owned$ = new BehaviorSubject<ReadonlySet<number>>(new Set());
  #phase: "idle" | "joining" | "running" | "stopping" | "stopped" = "idle";
  #ticks: Subscription | undefined;
  #deadline: Subscription | undefined;
  #ticking = false;
  #tickAgain = false;
  #presenceGone = false;
  /** This worker's even share of the partitions, as of the last lease table read. */
  #share: number | undefined;
  readonly #stopped: Promise<void>;
  #resolveStopped: () => void = () => undefined;

  constructor(options: PartitionLeasesOptions) {
    assertWorkerId(options.workerId);
    if (!Number.isInteger(options.partitions) || options.partitions < 1) {
      throw new RangeError(`partitions must be a positive integer, got ${options.partitions}`);
    }
    if (!(options.ttlMs > 0)) throw new RangeError(`ttlMs must be positive, got ${options.ttlMs}`);
    this.#kv = options.kv;
    this.#workerId = options.workerId;
    this.#partitions = options.partitions;
    this.#ttlMs = options.ttlMs;
    this.#log = options.logger;
    this.#drain = options.drain ?? (async () => undefined);
    this.#scheduler = options.scheduler ?? asyncScheduler;
    this.#stopped = new Promise((resolve) => (this.#resolveStopped = resolve));
    this.owned = this.#owned$.pipe(distinctUntilChanged(sameMembers));
  }

  /**
   * How many partitions this worker should hold among the workers present, as of the last lease
   * table it read; undefined until it has read one. Readiness compares it with what it holds.
   */
  get share(): number | undefined {
    return this.#share;
  }

  /** Announces this worker, then acquires from the next tick on (so peers starting together see each other first). */
  start(): void {
    if (this.#phase !== "idle") return;
    this.#phase = "joining";
    // A quarter, so a renew may be late by a quarter of the TTL (an event loop or a server busy
    // under load) before the lease is dropped at half of it. At a third, a renew answered more
    // than 1.7 s late (the default 10 s TTL) lost leases in full test runs with both cores busy,
    // and the partitions' turns moved mid-way.
    this.#ticks = interval(this.#ttlMs / 4, this.#scheduler).subscribe(() => this.#trigger());
    this.#trigger();
  }

  /** Drains and releases every held partition, removes this worker's presence, emits the empty set. */
  stop(): Promise<void> {
    if (this.#phase === "idle") this.#finish();
    if (this.#phase === "joining" || this.#phase === "running") {
      this.#phase = "stopping";
      this.#trigger();
    }
    return this.#stopped;
  }

  // Ticks never overlap (a slow NATS would pile them up); a trigger during one runs another after it.
  #trigger(): void {
    if (this.#phase === "idle" || this.#phase === "stopped") return;
    if (this.#ticking) {
      this.#tickAgain = true;
      return;
    }
    this.#ticking = true;
    void this.#tick().finally(() => {
      this.#ticking = false;
      if (this.#tickAgain) {
        this.#tickAgain = false;
        this.#trigger();
      }
    });
  }

  async #tick(): Promise<void> {
    try {
      await this.#renew();
      if (this.#phase === "joining") {
        await this.#within(this.#kv.put(presenceKey(this.#workerId), this.#workerId));
        this.#phase = "running";
      } else if (this.#phase === "running") {
        await this.#rebalance();
      } else {
        await this.#leave();
      }
      await this.#releaseDrained();
    } catch (err) {
      this.#log.warn({ workerId: this.#workerId, reason: err instanceof TimeoutError ? "timeout" : "kv_error", err }, "partition lease tick failed");
    }
    if (this.#phase === "stopping" && this.#presenceGone && this.#held.size === 0 && this.#releasing.size === 0) this.#finish();
  }

  async #renew(): Promise<void> {
    const failures: unknown[] = [];
    await Promise.all(
      [...this.#held].map(async ([partition, lease]) => {
        const sentAt = this.#scheduler.now();
        try {
          const revision = await this.#within(this.#kv.update(partitionKey(partition), this.#workerId, lease.revision));
          if (this.#held.get(partition) === lease) this.#held.set(partition, { revision, renewedAt: sentAt });
        } catch (err) {
          if (!isRevisionConflict(err)) failures.push(err);
          else if (this.#held.get(partition) === lease) this.#lose(partition, "conflict");
        }
      }),
    );
    this.#refresh();
    if (failures.length > 0) throw failures[0];
  }

  async #rebalance(): Promise<void> {
    await this.#within(this.#kv.put(presenceKey(this.#workerId), this.#workerId));
    const table = await this.#within(readLeaseTable(this.#kv, this.#partitions));
    // The bucket is the truth: a lease it shows gone or someone else's is lost now.
    for (const partition of this.#held.keys()) {
      const holder = table.holders.get(partition)?.workerId;
      if (holder !== this.#workerId) this.#lose(partition, holder === undefined ? "expired" : "taken");
    }
    this.#refresh();
    await this.#releaseStale(table);

    this.#share = leaseTarget(this.#partitions, table.workers, this.#workerId);
    const holders = new Map([...table.holders].map(([partition, lease]) => [partition, lease.workerId]));
    const plan = leasePlan({
      partitions: this.#partitions,
      self: this.#workerId,
      owned: new Set(this.#held.keys()),
      holders,
      workers: table.workers,
    });
    for (const partition of plan.release) this.#startRelease(partition, "rebalance");
    await this.#acquire(plan.acquire);
  }

  async #acquire(partitions: readonly number[]): Promise<void> {
    const failures: unknown[] = [];
    await Promise.all(
      partitions.map(async (partition) => {
        const sentAt = this.#scheduler.now();
        try {
          const revision = await this.#within(this.#kv.create(partitionKey(partition), this.#workerId));
          this.#held.set(partition, { revision, renewedAt: sentAt });
          this.#log.info({ partition, workerId: this.#workerId }, "partition lease acquired");
        } catch (err) {
          if (!isRevisionConflict(err)) failures.push(err);
        }
      }),
    );
    // A create answered too late to trust is dropped here as overdue; the next tick deletes it as stale.
    this.#refresh();
    if (failures.length > 0) throw failures[0];
  }

  /** Our own leases we do not hold (a late create, a renew after the local deadline): free them. */
  async #releaseStale(table: LeaseTable): Promise<void> {
    for (const [partition, lease] of table.holders) {
      if (lease.workerId !== this.#workerId || this.#held.has(partition)) continue;
      try {
        await this.#within(this.#kv.delete(partitionKey(partition), { previousSeq: lease.revision }));
        this.#log.info({ partition, workerId: this.#workerId, reason: "stale" }, "partition lease released");
      } catch (err) {
        if (!isRevisionConflict(err)) throw err;
      }
    }
  }

  async #leave(): Promise<void> {
    for (const partition of this.#held.keys()) this.#startRelease(partition, "shutdown");
    if (this.#presenceGone) return;
    // Best effort, once: if it fails, the presence ages out with the bucket TTL.
    this.#presenceGone = true;
    await this.#within(this.#kv.delete(presenceKey(this.#workerId)));
  }

  #startRelease(partition: number, reason: ReleaseReason): void {
    if (this.#releasing.has(partition)) return;
    const release: Release = { reason, drained: false };
    this.#releasing.set(partition, release);
    (async () => this.#drain(partition))().then(
      () => {
        release.drained = true;
        this.#trigger();
      },
      (err: unknown) => {
        this.#log.warn({ partition, workerId: this.#workerId, reason: "drain_failed", err }, "partition drain failed");
        // A rebalance keeps the lease and tries again; a leaving worker lets go regardless.
        if (reason === "shutdown") release.drained = true;
        else this.#releasing.delete(partition);
        this.#trigger();
      },
    );
  }

  async #releaseDrained(): Promise<void> {
    for (const [partition, release] of this.#releasing) {
      if (!release.drained) continue;
      this.#releasing.delete(partition);
      const lease = this.#held.get(partition);
      if (lease === undefined) continue;
      // Stop owning before the bucket frees it: no instant where another worker holds it while we do.
      this.#held.delete(partition);
      this.#refresh();
      try {
        await this.#within(this.#kv.delete(partitionKey(partition), { previousSeq: lease.revision }));
        this.#log.info({ partition, workerId: this.#workerId, reason: release.reason }, "partition lease released");
      } catch (err) {
        // Not ours any more, or it ages out (and a running worker deletes it as stale next tick).
        if (!isRevisionConflict(err)) throw err;
      }
    }
  }

  #lose(partition: number, reason: LostReason): void {
    this.#held.delete(partition);
    this.#log.warn({ partition, workerId: this.#workerId, reason }, "partition lease lost");
  }

  /** Drops overdue leases, publishes the owned set, and arms a timer for the next deadline. */
  #refresh(): void {
    const now = this.#scheduler.now();
    const halfTtl = this.#ttlMs / 2;
    for (const [partition, lease] of this.#held) {
      if (now - lease.renewedAt >= halfTtl) this.#lose(partition, "renew_overdue");
    }
    this.#owned$.next(new Set(this.#held.keys()));

    this.#deadline?.unsubscribe();
    this.#deadline = undefined;
    if (this.#held.size === 0 || this.#phase === "stopped") return;
    const earliest = Math.min(...[...this.#held.values()].map((lease) => lease.renewedAt));
    this.#deadline = this.#scheduler.schedule(() => this.#refresh(), Math.max(0, earliest + halfTtl - now));
  }

  #finish(): void {
    this.#phase = "stopped";
    this.#ticks?.unsubscribe();
    this.#deadline?.unsubscribe();
    this.#owned$.next(new Set());
    this.#owned$.complete();
    this.#resolveStopped();
  }

  /** A KV call bounded by a third of the TTL, on the scheduler's clock: a stalled NATS fails the tick, not the next ones. */
  #within<T>(operation: Promise<T>): Promise<T> {
    return firstValueFrom(from(operation).pipe(timeout({ first: this.#ttlMs / 3, scheduler: this.#scheduler })));
  }
}

function sameMembers(a: ReadonlySet<number>, b: ReadonlySet<number>): boolean {
  return a.size === b.size && [...a].every((partition) => b.has(partition));
}
