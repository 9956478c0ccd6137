import type { SchedulerLike } from "rxjs";
import type { Subscriber } from "rxjs";
import type { ConsumeOptions, DurableMessage, Headers, PersistAck, PersistOptions } from "./bus.js";
import { DedupeWindow, type Clock } from "./dedupeWindow.js";
import type { DeliveryQueue } from "./deliveryQueue.js";
import { DurableConsumer, type ConsumerJournal, type StoredMessage } from "./durableConsumer.js";
import { ConsumerConflictError } from "./errors.js";
import { Fifo } from "../../operators/dispatch/fifo.js";
import type { JournaledMsgId, JournalReplay, MemoryJournal } from "./memoryJournal.js";
import { hasWildcards, subjectMatches } from "./subjectMatch.js";

/** JetStream's default `max_ack_pending`. */
const DEFAULT_MAX_ACK_PENDING = 1000;

/** The journal is rewritten while running once it has more lines than this… */
const COMPACT_MIN_LINES = 10_000;
/** …and more than this many times the lines a rewrite would keep: mostly acked, so the rewrite is small. */
const COMPACT_RATIO = 4;
/**
 * Acked messages whose msgIds a rewrite keeps (those still inside the duplicate window, newest
 * first): what a platform may hand over again after a crash is what it was not yet told arrived,
 * the last few batches (Telegram's are at most 100 updates). Bounded, so that a rewrite under a
 * high rate does not copy the whole window's msgIds every time.
 */
const KEPT_ACKED_MSGIDS = 10_000;

/** A journal for the durable subjects, opened and read (`MemoryJournal.open`), with what it held. */
export interface WorkQueueJournal {
  readonly journal: MemoryJournal;
  readonly replay: JournalReplay;
  /** Where a replayed message goes now (the partitions may have changed since it was appended); absent: its own subject. */
  readonly replaySubject?: (subject: string, data: unknown) => string;
}

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
  readonly #windowMs: number;
  readonly #journal: MemoryJournal | undefined;
  /** With a journal: every unacked message, in sequence order (what a rewrite keeps). */
  readonly #unacked = new Map<number, StoredMessage>();
  /** Journal lines past which a rewrite is considered (raised after one that failed). */
  #compactAfter = COMPACT_MIN_LINES;
  /** What the durable consumers tell the journal. */
  readonly #consumerJournal: ConsumerJournal | undefined;

  constructor(deliveries: DeliveryQueue, scheduler: SchedulerLike, duplicateWindowMs: number, journal?: WorkQueueJournal) {
    this.#deliveries = deliveries;
    this.#scheduler = scheduler;
    this.#windowMs = duplicateWindowMs;
    const clock: Clock = scheduler;
    this.#dedupe = new DedupeWindow(clock, duplicateWindowMs);
    this.#journal = journal?.journal;
    this.#consumerJournal =
      journal === undefined ? undefined : { delivered: (message) => journal.journal.delivered(message.seq), acked: (message) => this.#acked(message) };
    if (journal !== undefined) this.#restore(journal);
  }

  /** Stores a message (the subject is already validated) and offers it to the durables that want it. */
  append(subject: string, data: unknown, options: PersistOptions | undefined): PersistAck {
    const msgId = options?.msgId;
    const original = msgId === undefined ? undefined : this.#dedupe.claim(msgId, this.#lastSeq + 1);
    if (original !== undefined) return { seq: original, duplicate: true };

    const journal = this.#journal;
    const message: StoredMessage = {
      seq: this.#lastSeq + 1,
      subject,
      data,
      headers: options?.headers ?? NO_HEADERS,
      msgId,
      at: journal === undefined ? 0 : this.#scheduler.now(),
      deliveryCount: 0,
      holder: undefined,
      heldPrev: undefined,
      heldNext: undefined,
      acked: false,
      claimedBy: 0,
    };
    if (journal !== undefined) {
      // Written before the ack: what the caller hears was appended is on disk.
      try {
        journal.appended(message);
      } catch (err) {
        if (msgId !== undefined) this.#dedupe.forgetNewest(); // not stored: a retry must not read as a duplicate
        throw err;
      }
      this.#unacked.set(message.seq, message);
    }
    this.#lastSeq = message.seq;
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
    this.#journal?.close();
  }

  /**
   * Before any consumer exists: what the journal held unacked goes back into the backlog in
   * sequence order (each under `replaySubject`'s subject), to be delivered as newly appended
   * messages are; the sequence counter continues; msgIds return to the duplicate window — acked
   * ones (the newest `KEPT_ACKED_MSGIDS`) at their age when the last process stopped (the window
   * resumes where it was), queued ones as new (while an event is queued, its platform's
   * redelivery always collapses). A message keeps the deliveries the journal counted: one handed
   * out before the crash arrives redelivered, and the worker asks the delivery ledger about it;
   * one never handed out arrives as new. Then the journal is rewritten with only that.
   */
  #restore({ journal, replay, replaySubject }: WorkQueueJournal): void {
    const now = this.#scheduler.now();
    const shift = replay.lastAt === undefined ? 0 : now - replay.lastAt;
    const cutoff = now - this.#windowMs;
    this.#lastSeq = replay.lastSeq;
    for (const { msgId, seq, at } of replay.acked.slice(-KEPT_ACKED_MSGIDS)) {
      const restored = Math.min(at + shift, now);
      if (restored > cutoff) this.#dedupe.restore(msgId, seq, restored);
    }
    for (const queued of replay.queued) {
      const message: StoredMessage = {
        seq: queued.seq,
        subject: replaySubject?.(queued.subject, queued.data) ?? queued.subject,
        data: queued.data,
        headers: queued.headers,
        msgId: queued.msgId,
        at: Math.min(queued.at + shift, now),
        deliveryCount: queued.deliveries,
        holder: undefined,
        heldPrev: undefined,
        heldNext: undefined,
        acked: false,
        claimedBy: 0,
      };
      this.#backlog.push(message);
      this.#unacked.set(message.seq, message);
      if (message.msgId !== undefined) this.#dedupe.restore(message.msgId, message.seq, now);
    }
    // A fresh journal is created by the first append; one with anything in it (a torn last line
    // included, which the next line must not continue) is rewritten now.
    if (journal.lines > 0) this.#compact(journal);
  }

  #acked(message: StoredMessage): void {
    const journal = this.#journal as MemoryJournal;
    this.#unacked.delete(message.seq);
    journal.acked(message.seq);
    const kept = this.#unacked.size + Math.min(this.#dedupe.size, KEPT_ACKED_MSGIDS);
    if (journal.lines > this.#compactAfter && journal.lines > COMPACT_RATIO * kept) this.#compact(journal);
  }

  /** Rewrites the journal with the unacked messages and the newest msgIds of acked ones still inside the window. */
  #compact(journal: MemoryJournal): void {
    const now = this.#scheduler.now();
    const cutoff = now - this.#windowMs;
    const acked: JournaledMsgId[] = [];
    this.#dedupe.forEachNewest((msgId, at, seq) => {
      if (at <= cutoff) return false;
      if (!this.#unacked.has(seq)) acked.push({ msgId, seq, at });
      return acked.length < KEPT_ACKED_MSGIDS;
    });
    const rewritten = journal.rewrite(this.#lastSeq, now, acked.reverse(), this.#unacked.values());
    // A rewrite that failed left the file as it was: not tried again until its lines have doubled.
    this.#compactAfter = rewritten ? COMPACT_MIN_LINES : 2 * journal.lines;
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
      this.#consumerJournal,
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
