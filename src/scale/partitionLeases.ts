import { asyncScheduler, BehaviorSubject, distinctUntilChanged, interval, TimeoutError } from "rxjs";
import type { Observable, SchedulerLike, Subscription } from "rxjs";
import { leasePlan, leaseTarget } from "../../operators/dispatch/leasePlan.js";
import type { Logger } from "../log/logger.js";
import { HeldLeases } from "./heldLeases.js";
import { assertWorkerId, partitionKey, presenceKey, readLeaseTable, type LeaseBucket, type LeaseTable } from "./leaseBucket.js";
import { SerialTicks } from "./serialTicks.js";

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

type ReleaseReason = "rebalance" | "shutdown";

interface Release {
  readonly reason: ReleaseReason;
  drained: boolean;
}

/**
 * The partitions this worker may consume, held as leases in a NATS KV bucket (architecture §4;
 * `HeldLeases` keeps them): `create` acquires, `update` at the held revision renews, the bucket TTL
 * expires a dead worker's leases. Every quarter of the TTL a tick renews, reads the table, and
 * follows `leasePlan` towards an even split over the workers present. A lease not renewed within
 * half the TTL leaves `owned` at once, so this worker stops before any other can acquire it.
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

  readonly #held: HeldLeases;
  readonly #releasing = new Map<number, Release>();
  readonly #owned$ = new BehaviorSubject<ReadonlySet<number>>(new Set());
  #phase: "idle" | "joining" | "running" | "stopping" | "stopped" = "idle";
  #ticks: Subscription | undefined;
  readonly #ticker = new SerialTicks(() => this.#tick(), () => this.#phase !== "idle" && this.#phase !== "stopped");
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
    this.#held = new HeldLeases({
      kv: this.#kv,
      holder: this.#workerId,
      ttlMs: this.#ttlMs,
      scheduler: this.#scheduler,
      changed: (keys) => this.#owned$.next(new Set([...keys].map(partitionOf))),
      acquired: (key) => this.#log.info({ partition: partitionOf(key), workerId: this.#workerId }, "partition lease acquired"),
      lost: (key, reason) => this.#log.warn({ partition: partitionOf(key), workerId: this.#workerId, reason }, "partition lease lost"),
    });
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

  // Ticks never overlap; a trigger during one runs another after it (SerialTicks).
  #trigger(): void {
    this.#ticker.trigger();
  }

  async #tick(): Promise<void> {
    try {
      await this.#held.renew();
      if (this.#phase === "joining") {
        await this.#held.within(this.#kv.put(presenceKey(this.#workerId), this.#workerId));
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

  async #rebalance(): Promise<void> {
    await this.#held.within(this.#kv.put(presenceKey(this.#workerId), this.#workerId));
    const table = await this.#held.within(readLeaseTable(this.#kv, this.#partitions));
    // The bucket is the truth: a lease it shows gone or someone else's is lost now.
    for (const key of this.#held.keys()) {
      const holder = table.holders.get(partitionOf(key))?.workerId;
      if (holder !== this.#workerId) this.#held.lose(key, holder === undefined ? "expired" : "taken");
    }
    this.#held.refresh();
    await this.#releaseStale(table);

    this.#share = leaseTarget(this.#partitions, table.workers, this.#workerId);
    const holders = new Map([...table.holders].map(([partition, lease]) => [partition, lease.workerId]));
    const plan = leasePlan({
      partitions: this.#partitions,
      self: this.#workerId,
      owned: new Set(this.#held.keys().map(partitionOf)),
      holders,
      workers: table.workers,
    });
    for (const partition of plan.release) this.#startRelease(partition, "rebalance");
    await this.#held.acquire(plan.acquire.map(partitionKey));
  }

  /** Our own leases we do not hold (a late create, a renew after the local deadline): free them. */
  async #releaseStale(table: LeaseTable): Promise<void> {
    for (const [partition, lease] of table.holders) {
      if (lease.workerId !== this.#workerId || this.#held.has(partitionKey(partition))) continue;
      if (await this.#held.deleteAt(partitionKey(partition), lease.revision)) this.#log.info({ partition, workerId: this.#workerId, reason: "stale" }, "partition lease released");
    }
  }

  async #leave(): Promise<void> {
    for (const key of this.#held.keys()) this.#startRelease(partitionOf(key), "shutdown");
    if (this.#presenceGone) return;
    // Best effort, once: if it fails, the presence ages out with the bucket TTL.
    this.#presenceGone = true;
    await this.#held.within(this.#kv.delete(presenceKey(this.#workerId)));
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
      // Owned no more before the bucket frees it. A conflict: not ours any more, or it ages out (and
      // a running worker deletes it as stale next tick).
      const key = partitionKey(partition);
      if (await this.#held.release(key)) this.#log.info({ partition, workerId: this.#workerId, reason: release.reason }, "partition lease released");
    }
  }

  #finish(): void {
    this.#phase = "stopped";
    this.#ticks?.unsubscribe();
    this.#held.close();
    this.#owned$.next(new Set());
    this.#owned$.complete();
    this.#resolveStopped();
  }
}

/** The partition a `partition.<n>` key names. */
function partitionOf(key: string): number {
  return Number(key.slice("partition.".length));
}

function sameMembers(a: ReadonlySet<number>, b: ReadonlySet<number>): boolean {
  return a.size === b.size && [...a].every((partition) => b.has(partition));
}
