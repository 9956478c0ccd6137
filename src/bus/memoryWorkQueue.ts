import type { SchedulerLike } from "rxjs";
import type { Subscriber } from "rxjs";
import type { ConsumeOptions, DurableMessage, Headers, PersistAck, PersistOptions } from "./bus.js";
import { DedupeWindow, type Clock } from "./dedupeWindow.js";
import type { DeliveryQueue } from "./deliveryQueue.js";
import { DurableConsumer, type StoredMessage } from "./durableConsumer.js";
import { ConsumerConflictError } from "./errors.js";
import { Fifo } from "../../operators/dispatch/fifo.js";
import { hasWildcards, subjectMatches } from "./subjectMatch.js";

/** JetStream's default `max_ack_pending`. */
const DEFAULT_MAX_ACK_PENDING = 1000;

const NO_HEADERS: Headers = Object.freeze({});

/**
 * The durable half of `MemoryBus`: one in-process work queue (like a JetStream stream with
 * WorkQueue retention) with one sequence counter, a msgId duplicate window, and durable consumers.
 *
 * Overlapping durables: JetStream refuses a second work-queue consumer whose filter overlaps an
 * existing one, which cannot be checked in general for wildcard filters. Here each stored message
 * belongs to the first durable consumer that receives it (durables created earlier are offered new
 * messages first) and stays with that durable until acked; no other durable ever sees it.
 */
export class MemoryWorkQueue {
  #lastSeq = 0;
  readonly #backlog = new Backlog();
  readonly #consumers = new Map<string, DurableConsumer>();
  /** `#consumers`' values in creation order. */
  readonly #consumerList: DurableConsumer[] = [];
  /** `#consumers` with a plain filter, by that subject, in creation order. */
  readonly #exactConsumers = new Map<string, DurableConsumer[]>();
  /** How many consumers have a wildcard filter. */
  #wildcards = 0;
  readonly #dedupe: DedupeWindow;
  readonly #deliveries: DeliveryQueue;
  readonly #scheduler: SchedulerLike;

  constructor(deliveries: DeliveryQueue, scheduler: SchedulerLike, duplicateWindowMs: number) {
    this.#deliveries = deliveries;
    this.#scheduler = scheduler;
    const clock: Clock = scheduler;
    this.#dedupe = new DedupeWindow(clock, duplicateWindowMs);
  }

  /** Stores a message (the subject is already validated) and offers it to the durables that want it. */
  append(subject: string, data: unknown, options: PersistOptions | undefined): PersistAck {
    const msgId = options?.msgId;
    const original = msgId === undefined ? undefined : this.#dedupe.claim(msgId, this.#lastSeq + 1);
    if (original !== undefined) return { seq: original, duplicate: true };

    this.#lastSeq += 1;
    const message: StoredMessage = {
      seq: this.#lastSeq,
      subject,
      data,
      headers: options?.headers ?? NO_HEADERS,
      msgId,
      deliveryCount: 0,
      holder: undefined,
      heldPrev: undefined,
      heldNext: undefined,
      acked: false,
    };
    this.#backlog.push(message);
    // With only plain filters (the broker's partitions), this subject's consumers by lookup: an
    // append does not test every partition's consumer. With a wildcard one, all of them in creation
    // order (earlier durables are offered first). Indexed loops: a Map iterator allocates.
    const consumers = this.#wildcards === 0 ? this.#exactConsumers.get(subject) : this.#consumerList;
    if (consumers !== undefined) {
      for (let i = 0; i < consumers.length; i++) {
        const consumer = consumers[i] as DurableConsumer;
        if (consumer.accepts(subject)) consumer.requestPump();
      }
    }
    return { seq: message.seq, duplicate: false };
  }

  /**
   * Adds a subscription to the durable consumer `options.durable`, creating it on first use. The
   * first subscription fixes the durable's filter and `maxAckPending`; a later one that differs throws.
   */
  attach(filter: string, options: ConsumeOptions, subscriber: Subscriber<DurableMessage<unknown>>): () => void {
    return this.#consumerFor(filter, options).attach(subscriber);
  }

  /** Completes every consumer subscription; nothing is delivered afterwards. */
  close(): void {
    for (const consumer of this.#consumers.values()) consumer.close();
  }

  #consumerFor(filter: string, options: ConsumeOptions): DurableConsumer {
    const { durable, maxAckPending = DEFAULT_MAX_ACK_PENDING } = options;
    const existing = this.#consumers.get(durable);
    if (existing !== undefined) {
      if (existing.filter !== filter) {
        throw new ConsumerConflictError(durable, `consumes "${existing.filter}", not "${filter}"`);
      }
      if (existing.maxAckPending !== maxAckPending) {
        throw new ConsumerConflictError(durable, `has maxAckPending ${existing.maxAckPending}, not ${maxAckPending}`);
      }
      return existing;
    }
    if (!Number.isInteger(maxAckPending) || maxAckPending < 1) {
      throw new RangeError(`maxAckPending must be a positive integer, got ${maxAckPending}`);
    }
    const consumer = new DurableConsumer(
      durable,
      filter,
      maxAckPending,
      hasWildcards(filter) ? () => this.#backlog.takeOldest(filter) : () => this.#backlog.takeFrom(filter),
      this.#deliveries,
      this.#scheduler,
    );
    this.#consumers.set(durable, consumer);
    this.#consumerList.push(consumer);
    if (hasWildcards(filter)) this.#wildcards += 1;
    else {
      const list = this.#exactConsumers.get(filter);
      if (list === undefined) this.#exactConsumers.set(filter, [consumer]);
      else list.push(consumer);
    }
    return consumer;
  }
}

/** Subjects whose emptied backlog queue is kept for reuse. */
const KEPT_EMPTY_QUEUES = 1_024;

/**
 * Stored messages that no durable consumer has taken yet, one queue per subject (each oldest
 * first), so taking the next message never scans the stored messages themselves.
 */
class Backlog {
  readonly #bySubject = new Map<string, Fifo<StoredMessage>>();

  push(message: StoredMessage): void {
    let queue = this.#bySubject.get(message.subject);
    if (queue === undefined) {
      queue = new Fifo();
      this.#bySubject.set(message.subject, queue);
    }
    queue.push(message);
  }

  /** Removes and returns the oldest message whose subject matches the wildcard `filter`. */
  takeOldest(filter: string): StoredMessage | undefined {
    let oldestSubject: string | undefined;
    let oldestSeq = Infinity;
    for (const [subject, queue] of this.#bySubject) {
      const seq = queue.peek()?.seq ?? Infinity;
      if (seq < oldestSeq && subjectMatches(filter, subject)) {
        oldestSubject = subject;
        oldestSeq = seq;
      }
    }
    return oldestSubject === undefined ? undefined : this.takeFrom(oldestSubject);
  }

  /** Removes and returns the oldest message stored under exactly `subject`. */
  takeFrom(subject: string): StoredMessage | undefined {
    const queue = this.#bySubject.get(subject);
    const message = queue?.shift();
    // An emptied queue is kept while there are few subjects (the turn stream's partitions), so the
    // next message does not build it again; past that, dropped as before, so memory follows use.
    if (queue?.length === 0 && this.#bySubject.size > KEPT_EMPTY_QUEUES) this.#bySubject.delete(subject);
    return message;
  }
}
