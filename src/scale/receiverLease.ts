import { asyncScheduler, interval, TimeoutError } from "rxjs";
import type { SchedulerLike, Subscription } from "rxjs";
import type { Logger } from "../log/logger.js";
import { HeldLeases, type LostReason } from "./heldLeases.js";
import { assertWorkerId, receiverKey, type LeaseBucket } from "./leaseBucket.js";
import { SerialTicks } from "./serialTicks.js";

/** A platform connection only one process per bot may hold (Telegram's `getUpdates` poller), started and stopped by its lease. */
export interface LeasedReceiver {
  /** The connection as a KV key's tail, nothing secret in it: `telegram.<bot id>`. */
  readonly key: string;
  startReceiving(): void;
  /**
   * Stops receiving at once; resolves once stopped. Anything it still says to the platform (a
   * last confirmation) ends within `withinMs`, after which another holder may start.
   */
  stopReceiving(withinMs: number): Promise<void>;
}

/** How long after the holder's last write should have expired a stand-by tries once more (the server expires it within milliseconds). */
const EXPIRY_MARGIN_MS = 50;

export interface ReceiverLeaseOptions {
  /** The lease bucket (`<prefix>_leases`, the partitions' bucket and TTL). */
  readonly kv: LeaseBucket;
  /** This process's id: one KV key token, unique among the deployment's processes. */
  readonly holder: string;
  readonly receiver: LeasedReceiver;
  /** The bucket's TTL. The lease renews every quarter of it and counts as lost locally after half of it. */
  readonly ttlMs: number;
  readonly logger: Logger;
  /** Timers and the clock (default `asyncScheduler`). */
  readonly scheduler?: SchedulerLike;
}

/**
 * One holder per bot for a connection only one may hold, among the edges of a deployment: every
 * quarter of the TTL a tick renews the lease (`receiver.<key>` in the lease bucket) or, not holding
 * it, tries to create it. The holder receives; the others stand by and take over once the bucket's
 * TTL expired a dead holder's lease: a stand-by aims one more try at just after the holder's last
 * write expires, so a dead holder is replaced within the TTL of its last renew. Receiving follows what `HeldLeases` holds: a lease that is
 * lost (a renew that conflicts, or none succeeded within half the TTL) stops it at once, half a TTL
 * before anyone else can acquire the key, so two processes never receive for one bot.
 */
export class ReceiverLease {
  readonly #kv: LeaseBucket;
  readonly #key: string;
  readonly #holder: string;
  readonly #receiver: LeasedReceiver;
  readonly #ttlMs: number;
  readonly #log: Logger;
  readonly #scheduler: SchedulerLike;
  readonly #held: HeldLeases;

  #phase: "idle" | "running" | "stopping" | "stopped" = "idle";
  #ticks: Subscription | undefined;
  /** A stand-by's try aimed at the expiry of the holder's last write (its revision: aimed once each). */
  #aim: Subscription | undefined;
  #aimedAt: number | undefined;
  readonly #ticker = new SerialTicks(() => this.#tick(), () => this.#phase !== "idle" && this.#phase !== "stopped");
  /** Whether receiving should run (the lease is held), and whether it does; switches run one after another. */
  #want = false;
  #receiving = false;
  #switches: Promise<void> = Promise.resolve();
  /** How long a stop may keep talking to the platform: short on a lost lease, none when another may hold it already. */
  #stopWithinMs = 0;
  /** The other holder last logged as holding the lease, so standing by is logged once per holder. */
  #standingBy: string | undefined;
  readonly #stopped: Promise<void>;
  #resolveStopped: () => void = () => undefined;

  constructor(options: ReceiverLeaseOptions) {
    assertWorkerId(options.holder);
    if (!(options.ttlMs > 0)) throw new RangeError(`ttlMs must be positive, got ${options.ttlMs}`);
    this.#kv = options.kv;
    this.#key = receiverKey(options.receiver.key);
    this.#holder = options.holder;
    this.#receiver = options.receiver;
    this.#ttlMs = options.ttlMs;
    this.#log = options.logger;
    this.#scheduler = options.scheduler ?? asyncScheduler;
    this.#stopped = new Promise((resolve) => (this.#resolveStopped = resolve));
    this.#held = new HeldLeases({
      kv: this.#kv,
      holder: this.#holder,
      ttlMs: this.#ttlMs,
      scheduler: this.#scheduler,
      changed: (held) => this.#follow(held.has(this.#key)),
      acquired: () => {
        this.#standingBy = undefined;
        this.#log.info({ receiver: this.#receiver.key, holder: this.#holder }, "receiver lease acquired");
      },
      lost: (_key, reason) => this.#lost(reason),
    });
  }

  /** Whether this process holds the lease now (and so receives). */
  get holding(): boolean {
    return this.#held.has(this.#key);
  }

  /** Takes part: the first tick tries to acquire at once. */
  start(): void {
    if (this.#phase !== "idle") return;
    this.#phase = "running";
    // A quarter, as the partitions: a renew may be late by a quarter of the TTL before the lease is dropped at half.
    this.#ticks = interval(this.#ttlMs / 4, this.#scheduler).subscribe(() => this.#trigger());
    this.#trigger();
  }

  /** Stops receiving (what was received is confirmed while the lease still holds), then releases the lease so a peer takes over on its next tick. */
  stop(): Promise<void> {
    if (this.#phase === "idle") this.#finish();
    if (this.#phase === "running") {
      this.#phase = "stopping";
      this.#follow(this.#held.has(this.#key));
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
      if (this.#phase === "stopping") {
        await this.#leave();
      } else {
        await this.#held.renew();
        if (!this.#held.has(this.#key)) await this.#acquire();
      }
    } catch (err) {
      this.#log.warn({ receiver: this.#receiver.key, holder: this.#holder, reason: err instanceof TimeoutError ? "timeout" : "kv_error", err }, "receiver lease tick failed");
    }
    if (this.#phase === "stopping" && !this.#held.has(this.#key) && !this.#receiving) this.#finish();
  }

  async #acquire(): Promise<void> {
    await this.#held.acquire([this.#key]);
    if (this.#held.has(this.#key)) return;
    const entry = await this.#held.within(this.#kv.get(this.#key));
    if (entry?.operation !== "PUT") return;
    const holder = entry.string();
    if (holder === this.#holder) {
      // Ours, yet not held: a create answered after its deadline, or a renew after it. Freed, taken next tick.
      if (await this.#held.deleteAt(this.#key, entry.revision)) this.#log.info({ receiver: this.#receiver.key, holder: this.#holder, reason: "stale" }, "receiver lease released");
      return;
    }
    this.#aimAtExpiry(entry.revision, entry.created);
    if (holder === this.#standingBy) return;
    this.#standingBy = holder;
    this.#log.info({ receiver: this.#receiver.key, holder: this.#holder, reason: "held_elsewhere", heldBy: holder }, "receiver standing by");
  }

  /** One more try just after the entry at `revision`, written at `created` (the server's clock), expires. */
  #aimAtExpiry(revision: number, created: Date): void {
    if (revision === this.#aimedAt) return;
    this.#aimedAt = revision;
    this.#aim?.unsubscribe();
    this.#aim = this.#scheduler.schedule(() => this.#trigger(), Math.max(0, created.getTime() + this.#ttlMs + EXPIRY_MARGIN_MS - this.#scheduler.now()));
  }

  async #leave(): Promise<void> {
    // Renewed meanwhile, so the lease outlasts the stop and a peer may take it at once when deleted.
    await Promise.all([this.#switches, this.#held.renew().catch(() => undefined)]);
    if (await this.#held.release(this.#key)) this.#log.info({ receiver: this.#receiver.key, holder: this.#holder, reason: "shutdown" }, "receiver lease released");
  }

  #lost(reason: LostReason): void {
    this.#log.warn({ receiver: this.#receiver.key, holder: this.#holder, reason }, "receiver lease lost");
    // Overdue: nobody can hold it for another half TTL, so a last confirmation may take a quarter.
    // A conflict means the key changed hands already: nothing more is said to the platform.
    this.#stopWithinMs = reason === "renew_overdue" ? this.#ttlMs / 4 : 0;
  }

  /** Receiving follows the lease while running: started once held, stopped at once when not, or when stopping. */
  #follow(held: boolean): void {
    const want = held && this.#phase === "running";
    if (want === this.#want) return;
    // Stopping with the lease held: it was renewed within half the TTL, so another half is left.
    if (held) this.#stopWithinMs = this.#ttlMs / 4;
    this.#want = want;
    this.#switch();
  }

  /** Brings receiving to what `#want` says, after any switch under way (a stop still confirming). */
  #switch(): void {
    this.#switches = this.#switches.then(async () => {
      if (this.#want && !this.#receiving) {
        this.#receiving = true;
        this.#receiver.startReceiving();
      } else if (!this.#want && this.#receiving) {
        this.#receiving = false;
        await this.#receiver.stopReceiving(this.#stopWithinMs).catch((err: unknown) => this.#log.warn({ receiver: this.#receiver.key, reason: "stop_failed", err }, "receiver did not stop cleanly"));
      }
    });
  }

  #finish(): void {
    this.#phase = "stopped";
    this.#ticks?.unsubscribe();
    this.#aim?.unsubscribe();
    this.#held.close();
    this.#resolveStopped();
  }
}
