import type { SchedulerLike, Subscriber } from "rxjs";
import type { DurableMessage, Headers } from "./bus.js";
import type { DeliveryQueue } from "./deliveryQueue.js";
import { subjectMatches } from "./subjectMatch.js";

/** A persisted message of the in-process work queue, from `persist()` until its `ack()`. */
export interface StoredMessage {
  readonly seq: number;
  readonly subject: string;
  readonly data: unknown;
  readonly headers: Headers;
  readonly msgId: string | undefined;
  /** When it was appended, on the bus clock (0 when nothing journals it). */
  readonly at: number;
  /** How often it was handed out; the current delivery carries this count. */
  deliveryCount: number;
  /** The subscription holding it unacked, if any. */
  holder: ConsumerSubscription | undefined;
  /** Its neighbours in the holder's list of held messages (an intrusive list: no Set entry per delivery). */
  heldPrev: StoredMessage | undefined;
  heldNext: StoredMessage | undefined;
  acked: boolean;
  /**
   * The delivery count of the delivery that claimed it (0: none): an ending subscription keeps it
   * instead of giving it back while that delivery is current. A redelivery outdates the claim by
   * itself, so delivering writes nothing here.
   */
  claimedBy: number;
}

/** Told of each delivery and of each message's first ack, to write them down (`MemoryJournal`). */
export interface ConsumerJournal {
  delivered(message: StoredMessage): void;
  acked(message: StoredMessage): void;
}

/** One `consume()` subscription and the messages it holds unacked, newest first. */
interface ConsumerSubscription {
  readonly subscriber: Subscriber<DurableMessage<unknown>>;
  held: StoredMessage | undefined;
}

/**
 * The shared cursor behind every `consume()` subscription with one durable name. A message it has
 * delivered once belongs to it until acked. It hands messages to its subscriptions round-robin,
 * returned (naked or given back) ones before new ones, and keeps at most `maxAckPending` unacked.
 */
export class DurableConsumer {
  readonly #subscriptions: ConsumerSubscription[] = [];
  /** Naked messages and those held by ended subscriptions, oldest first. */
  readonly #returned: StoredMessage[] = [];
  #inFlight = 0;
  #turn = 0;
  #pumpScheduled = false;
  #closed = false;
  /** Takes the oldest stored message under `filter` that no durable consumer owns yet. */
  readonly #takeNew: () => StoredMessage | undefined;
  readonly #deliveries: DeliveryQueue;
  /** The bus's clock, for delayed naks. */
  readonly #timers: SchedulerLike;
  readonly #journal: ConsumerJournal | undefined;

  constructor(
    readonly name: string,
    readonly filter: string,
    readonly maxAckPending: number,
    takeNew: () => StoredMessage | undefined,
    deliveries: DeliveryQueue,
    timers: SchedulerLike,
    journal?: ConsumerJournal,
  ) {
    this.#takeNew = takeNew;
    this.#deliveries = deliveries;
    this.#timers = timers;
    this.#journal = journal;
  }

  accepts(subject: string): boolean {
    return subjectMatches(this.filter, subject);
  }

  /** Adds a subscription; the returned function ends it. */
  attach(subscriber: Subscriber<DurableMessage<unknown>>): () => void {
    const subscription: ConsumerSubscription = { subscriber, held: undefined };
    this.#subscriptions.push(subscription);
    this.requestPump();
    return () => this.#detach(subscription);
  }

  /** Acks by message, not by delivery (as JetStream acks by stream sequence): a stale delivery's ack still counts. */
  ack(message: StoredMessage): void {
    if (message.acked) return;
    message.acked = true;
    this.#journal?.acked(message);
    if (message.holder !== undefined) {
      this.#release(message);
      this.requestPump();
    } else {
      const index = this.#returned.indexOf(message);
      if (index !== -1) this.#returned.splice(index, 1);
    }
  }

  /**
   * Only the current delivery may nak: a repeated nak, a nak after ack, or one from an older delivery
   * is ignored. Redelivery is immediate, like JetStream's nak without delay, so a subscriber that
   * naks every delivery synchronously spins.
   */
  nak(message: StoredMessage, deliveryCount: number): void {
    if (message.holder === undefined || message.deliveryCount !== deliveryCount) return;
    this.#release(message);
    this.#giveBack(message);
    this.requestPump();
  }

  /** `nak` after `delayMs` of the bus's time; the message stays pending (held) until then. */
  nakLater(message: StoredMessage, deliveryCount: number, delayMs: number): void {
    this.#timers.schedule(() => this.nak(message, deliveryCount), delayMs);
  }

  /** Stops delivering and completes every subscription. */
  close(): void {
    this.#closed = true;
    for (const subscription of [...this.#subscriptions]) subscription.subscriber.complete();
  }

  /** Schedules delivery on the bus's trampoline, so an ack from inside a callback never recurses. */
  requestPump(): void {
    if (this.#pumpScheduled || !this.#canDeliver()) return;
    this.#pumpScheduled = true;
    this.#deliveries.schedule(this.#pump);
  }

  readonly #pump = (): void => {
    this.#pumpScheduled = false;
    while (this.#canDeliver()) {
      const subscription = this.#subscriptions[this.#turn % this.#subscriptions.length]!;
      // Unsubscribed by an earlier delivery in this loop before its teardown could run.
      if (subscription.subscriber.closed) {
        this.#detach(subscription);
        continue;
      }
      const message = this.#returned.shift() ?? this.#takeNew();
      if (message === undefined) return;
      this.#turn += 1;
      message.deliveryCount += 1;
      this.#journal?.delivered(message);
      hold(subscription, message);
      this.#inFlight += 1;
      subscription.subscriber.next(new Delivery(this, message));
    }
  };

  #canDeliver(): boolean {
    return !this.#closed && this.#subscriptions.length > 0 && this.#inFlight < this.maxAckPending;
  }

  /**
   * Ends a subscription; what it held unacked goes back for redelivery to the others or the next
   * one, except what its deliveries claimed: that stays held by the ended subscription until acked
   * or naked.
   */
  #detach(subscription: ConsumerSubscription): void {
    const index = this.#subscriptions.indexOf(subscription);
    if (index === -1) return;
    this.#subscriptions.splice(index, 1);
    for (let message = subscription.held; message !== undefined; ) {
      const next = message.heldNext;
      if (message.claimedBy !== message.deliveryCount) {
        this.#release(message);
        this.#giveBack(message);
      }
      message = next;
    }
    this.requestPump();
  }

  #release(message: StoredMessage): void {
    const holder = message.holder;
    if (holder === undefined) return;
    const { heldPrev, heldNext } = message;
    if (heldPrev === undefined) holder.held = heldNext;
    else heldPrev.heldNext = heldNext;
    if (heldNext !== undefined) heldNext.heldPrev = heldPrev;
    message.heldPrev = undefined;
    message.heldNext = undefined;
    message.holder = undefined;
    this.#inFlight -= 1;
  }

  #giveBack(message: StoredMessage): void {
    let index = this.#returned.length;
    while (index > 0 && this.#returned[index - 1]!.seq > message.seq) index -= 1;
    this.#returned.splice(index, 0, message);
  }
}

/** Puts `message` at the front of `subscription`'s held list. */
function hold(subscription: ConsumerSubscription, message: StoredMessage): void {
  message.holder = subscription;
  message.heldPrev = undefined;
  message.heldNext = subscription.held;
  if (subscription.held !== undefined) subscription.held.heldPrev = message;
  subscription.held = message;
}

/** One delivery of a stored message, as a `consume()` subscriber sees it. */
class Delivery<T> implements DurableMessage<T> {
  readonly subject: string;
  readonly data: T;
  readonly headers: Headers;
  readonly seq: number;
  readonly deliveryCount: number;
  readonly msgId: string | undefined;
  // Private fields stay out of logs and JSON: the consumer graph is large and circular.
  readonly #consumer: DurableConsumer;
  readonly #message: StoredMessage;
  #naked = false;

  constructor(consumer: DurableConsumer, message: StoredMessage) {
    this.#consumer = consumer;
    this.#message = message;
    this.subject = message.subject;
    this.data = message.data as T;
    this.headers = message.headers;
    this.seq = message.seq;
    this.deliveryCount = message.deliveryCount;
    this.msgId = message.msgId;
  }

  ack(): void {
    if (!this.#naked) this.#consumer.ack(this.#message);
  }

  claim(): void {
    if (!this.#naked && this.#message.holder !== undefined && this.#message.deliveryCount === this.deliveryCount) this.#message.claimedBy = this.deliveryCount;
  }

  nak(delayMs?: number): void {
    if (this.#naked) return;
    this.#naked = true;
    if (delayMs === undefined || delayMs <= 0) this.#consumer.nak(this.#message, this.deliveryCount);
    else this.#consumer.nakLater(this.#message, this.deliveryCount, delayMs);
  }
}
