import { catchError, concatMap, defer, Observable, of, retry, timer, type Subscription } from "rxjs";
import type { Bus, DurableMessage } from "../bus/bus.js";
import type { Logger } from "../log/logger.js";
import type { Subjects } from "../wire/index.js";

/** A message of the turn stream, with the partition subscription it came from. */
export interface IntakeMessage<T> {
  readonly message: DurableMessage<T>;
  readonly partition: number;
  /** Which subscription of the partition delivered it; a partition given up and taken again gets a new epoch. */
  readonly epoch: number;
  /**
   * When this worker took it from the bus (bus clock, ms): how long it then waited for its turn.
   * 0 when the intake was told nothing reads it (`stampReceipt: false`).
   */
  readonly receivedAt: number;
}

export interface PartitionIntakeOptions {
  readonly bus: Bus;
  readonly subjects: Subjects;
  /** The partitions this worker may consume, as they change (current value first). */
  readonly ownership: Observable<ReadonlySet<number>>;
  readonly logger: Logger;
  /** Whether to read the clock for each message's `receivedAt` (default true). */
  readonly stampReceipt?: boolean;
}

const maxRetryDelayMs = 30_000;
/** Slack over the bus's hand-back delay: the previous owner's hand-back is sent just after it stops owning. */
const takeoverMarginMs = 500;

/**
 * The worker's intake: one durable consumer per owned partition, merged. A partition that leaves
 * the owned set is unsubscribed at once — the bus hands its held messages back for the next owner —
 * and a message from that subscription must not start a turn any more (`isCurrent` says so). A
 * partition that joins it is consumed after the bus's hand-back delay, so the messages its previous
 * owner handed back come first and each session's order holds across the handover. A consumer
 * that errors (the bus lost its server, say) is logged and resubscribed with backoff.
 */
export class PartitionIntake<T> {
  readonly #options: PartitionIntakeOptions;
  readonly #epochs = new Map<number, number>();
  readonly #draining = new Set<number>();
  #nextEpoch = 1;

  constructor(options: PartitionIntakeOptions) {
    this.#options = options;
  }

  /** Partitions consumed right now. */
  get owned(): ReadonlySet<number> {
    return new Set(this.#epochs.keys());
  }

  /** How many partitions are consumed right now. */
  get ownedCount(): number {
    return this.#epochs.size;
  }

  /**
   * Messages of every owned partition, for as long as it is subscribed. Hand-written rather than a
   * Subject the consumers feed: each message is one `next` straight to the subscriber, and the
   * subscriber exists before the first consumer can deliver.
   */
  readonly messages: Observable<IntakeMessage<T>> = new Observable<IntakeMessage<T>>((subscriber) => {
    const { scheduler } = this.#options.bus;
    const stamp = this.#options.stampReceipt ?? true;
    const consumers = new Map<number, Subscription>();
    const stop = (partition: number) => {
      consumers.get(partition)?.unsubscribe();
      consumers.delete(partition);
      this.#epochs.delete(partition);
      this.#draining.delete(partition);
    };
    const ownership = this.#options.ownership.subscribe((owned) => {
      for (const partition of [...consumers.keys()]) if (!owned.has(partition)) stop(partition);
      for (const partition of owned) {
        if (consumers.has(partition)) continue;
        const epoch = this.#nextEpoch++;
        this.#epochs.set(partition, epoch);
        consumers.set(
          partition,
          this.#takeover(partition)
            .pipe(concatMap(() => this.#consume(partition)))
            .subscribe((message) => subscriber.next({ message, partition, epoch, receivedAt: stamp ? scheduler.now() : 0 })),
        );
      }
    });
    return () => {
      ownership.unsubscribe();
      for (const partition of [...consumers.keys()]) stop(partition);
    };
  });

  /** Whether a turn may start on this message: its partition is still owned by the same subscription and not draining. */
  isCurrent(item: IntakeMessage<T>): boolean {
    return this.#epochs.get(item.partition) === item.epoch && !this.#draining.has(item.partition);
  }

  /** Starts no new turn on `partition` (running ones go on); cleared when the partition is given up. */
  drain(partition: number): void {
    if (this.#epochs.has(partition)) this.#draining.add(partition);
  }

  /**
   * Waits out the bus's hand-back delay (plus a margin) before a partition is consumed, when its
   * consumer still has messages out with someone — a previous owner's hand-back on its way.
   */
  #takeover(partition: number): Observable<unknown> {
    const { bus, subjects, logger } = this.#options;
    const delayMs = bus.handBackDelayMs ?? 0;
    if (delayMs <= 0 || bus.ackPending === undefined) return of(0);
    const wait = timer(delayMs + takeoverMarginMs, bus.scheduler);
    return defer(() => bus.ackPending?.(subjects.partitionConsumer(partition)) ?? Promise.resolve(1)).pipe(
      catchError((err: unknown) => {
        logger.debug({ partition, err }, "partition consumer state unknown; waiting out the hand-back delay");
        return of(1);
      }),
      concatMap((pending) => (pending > 0 ? wait : of(0))),
    );
  }

  #consume(partition: number): Observable<DurableMessage<T>> {
    const { bus, subjects, logger } = this.#options;
    return bus.consume<T>(subjects.turn(partition), { durable: subjects.partitionConsumer(partition) }).pipe(
      retry({
        resetOnSuccess: true,
        delay: (err: unknown, attempt: number) => {
          const delayMs = Math.min(1_000 * 2 ** (attempt - 1), maxRetryDelayMs);
          logger.warn({ reason: "consumer_failed", partition, attempt, delayMs, err }, "partition consumer failed; resubscribing");
          return timer(delayMs, bus.scheduler);
        },
      }),
    );
  }
}
