import { Observable, asyncScheduler, type SchedulerLike, type Subscriber } from "rxjs";
import { MemoryFileStore } from "./files/memoryFileStore.js";
import type { FileStore } from "./files/fileStore.js";
import type {
  Bus,
  BusMessage,
  ConsumeOptions,
  DurableMessage,
  Headers,
  PersistAck,
  PersistOptions,
  PublishOptions,
  RequestOptions,
  SubscribeOptions,
} from "./bus.js";
import { DeliveryQueue } from "./deliveryQueue.js";
import { BusClosedError, BusTimeoutError, NoRespondersError } from "./errors.js";
import type { Logger } from "../log/logger.js";
import { MemoryJournal } from "./memoryJournal.js";
import { MemoryWorkQueue } from "./memoryWorkQueue.js";
import { subjectMatches, validateSubject } from "./subjectMatch.js";

export interface MemoryBusOptions {
  /** Time source for request timeouts and the duplicate window (default `asyncScheduler`). */
  readonly scheduler?: SchedulerLike;
  /** How long a persisted `msgId` suppresses repeats, in ms (default 120 000, as JetStream). */
  readonly duplicateWindowMs?: number;
  /** Keep the durable subjects in a journal file, so they outlive the process. Absent: memory only. */
  readonly journal?: MemoryBusJournal;
}

/**
 * Where and how the durable subjects are journaled (`MemoryJournal`): every append is written to
 * `path` before it is acked, every ack after it. The constructor reads the file first — what was
 * queued and unacked is queued again, in order, before anything can consume — and throws
 * `JournalOpenError` when it cannot. One process per file.
 */
export interface MemoryBusJournal {
  readonly path: string;
  /** For the journal's own lines (a torn or corrupt line skipped, a write that failed). */
  readonly logger: Logger;
  /** Where a message read back goes now (the subjects may have changed since it was appended); absent: its own subject. */
  readonly replaySubject?: (subject: string, data: unknown) => string;
}

const DEFAULT_DUPLICATE_WINDOW_MS = 120_000;
/** Forget all cached routes (and validated subjects) past this many distinct subjects, so per-session subjects cannot grow memory. */
const MAX_CACHED_ROUTES = 10_000;
const NO_HEADERS: Headers = Object.freeze({});

/**
 * The in-process `Bus`. Delivery is synchronous and in publish order; a publish, reply or ack made
 * from inside a subscriber is delivered after the current message (see `DeliveryQueue`). Payloads
 * are passed by reference, never copied. Durable subjects live in a `MemoryWorkQueue`, in memory
 * only unless `journal` is given.
 */
export class MemoryBus implements Bus {
  readonly scheduler: SchedulerLike;
  readonly shared = false;
  readonly files: FileStore = new MemoryFileStore();
  readonly #deliveries = new DeliveryQueue();
  readonly #subscriptions = new Set<CoreSubscription>();
  /** Recipients per published subject; dropped whenever a subscription starts or ends. */
  readonly #routes = new Map<string, Route>();
  /** Round-robin position per queue group name, kept across route rebuilds. */
  readonly #queueTurns = new Map<string, { next: number }>();
  readonly #pendingRequests = new Set<PendingRequest>();
  /** Subjects already found valid for publish, request and persist (a handful of turn and send subjects in practice). */
  readonly #validSubjects = new Set<string>();
  readonly #workQueue: MemoryWorkQueue;
  #closed = false;

  constructor(options: MemoryBusOptions = {}) {
    this.scheduler = options.scheduler ?? asyncScheduler;
    const duplicateWindowMs = options.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS;
    const journal = options.journal;
    const opened = journal === undefined ? undefined : MemoryJournal.open(journal.path, journal.logger);
    this.#workQueue = new MemoryWorkQueue(
      this.#deliveries,
      this.scheduler,
      duplicateWindowMs,
      opened === undefined ? undefined : { ...opened, ...(journal?.replaySubject === undefined ? {} : { replaySubject: journal.replaySubject }) },
    );
  }

  publish<T>(subject: string, data: T, options?: PublishOptions): void {
    this.#assertOpen();
    this.#assertValid(subject);
    const message = new CoreMessage(subject, data, options?.headers ?? NO_HEADERS, undefined);
    this.#deliveries.schedule(() => this.#route(message, undefined));
  }

  subscribe<T>(subject: string, options?: SubscribeOptions): Observable<BusMessage<T>> {
    // A custom Observable: the bus has to learn when each subscription starts and ends.
    return new Observable<BusMessage<T>>((subscriber) => {
      this.#assertOpen();
      validateSubject(subject, { wildcards: true });
      const subscription: CoreSubscription = { pattern: subject, queue: options?.queue, subscriber };
      this.#subscriptions.add(subscription);
      this.#routes.clear();
      return () => {
        this.#subscriptions.delete(subscription);
        this.#routes.clear();
      };
    });
  }

  request<TReq, TRes>(subject: string, data: TReq, options: RequestOptions): Observable<TRes> {
    const { timeoutMs } = options;
    // A custom Observable: the pending request must be dropped when the caller stops waiting. It
    // keeps its own timer, as `requestTimeout` would, without that operator's subscriber per request.
    return new Observable<TRes>((subscriber) => {
      this.#assertOpen();
      this.#assertValid(subject);
      const pending = new PendingRequest(subscriber, this.#deliveries);
      this.#pendingRequests.add(pending);
      const message = new CoreMessage(subject, data, options.headers ?? NO_HEADERS, pending);
      this.#deliveries.schedule(() => this.#route(message, pending));
      // Started after the request went out, and only when it is still waiting (an instant answer needs no timer).
      const timer = subscriber.closed ? undefined : this.scheduler.schedule(() => pending.fail(new BusTimeoutError(subject, timeoutMs)), timeoutMs);
      return () => {
        timer?.unsubscribe();
        pending.cancel();
        this.#pendingRequests.delete(pending);
      };
    });
  }

  persist<T>(subject: string, data: T, options?: PersistOptions): Observable<PersistAck> {
    // Hand-written: one Observable per event on the hottest path, where defer + of made two and a subscriber chain.
    // Cold like them: it checks, appends and acks on subscribe; a throw here reaches the subscriber as `error`.
    return new Observable<PersistAck>((subscriber) => {
      subscriber.next(this.persistNow(subject, data, options));
      subscriber.complete();
    });
  }

  persistNow<T>(subject: string, data: T, options?: PersistOptions): PersistAck {
    this.#assertOpen();
    this.#assertValid(subject);
    return this.#workQueue.append(subject, data, options);
  }

  consume<T>(filter: string, options: ConsumeOptions): Observable<DurableMessage<T>> {
    // A custom Observable: the durable consumer has to learn when each subscription starts and ends.
    return new Observable<DurableMessage<T>>((subscriber) => {
      this.#assertOpen();
      validateSubject(filter, { wildcards: true });
      return this.#workQueue.attach(filter, options, subscriber);
    });
  }

  /** Fails requests still waiting with `BusClosedError` (an empty completion would break callers expecting one reply). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const pending of [...this.#pendingRequests]) pending.fail(new BusClosedError());
    for (const subscription of [...this.#subscriptions]) subscription.subscriber.complete();
    this.#workQueue.close();
  }

  /** `validateSubject` without wildcards, once per distinct subject: it splits and scans the subject. */
  #assertValid(subject: string): void {
    if (this.#validSubjects.has(subject)) return;
    validateSubject(subject, { wildcards: false });
    if (this.#validSubjects.size >= MAX_CACHED_ROUTES) this.#validSubjects.clear();
    this.#validSubjects.add(subject);
  }

  #assertOpen(): void {
    if (this.#closed) throw new BusClosedError();
  }

  /** Delivers to every plain subscription and one member per queue group; a request nobody gets fails at once. */
  #route(message: CoreMessage<unknown>, request: PendingRequest | undefined): void {
    const { plain, groups } = this.#routeFor(message.subject);
    for (const subscription of plain) subscription.subscriber.next(message);
    for (const group of groups) nextMember(group)?.subscriber.next(message);
    if (plain.length === 0 && groups.length === 0) request?.fail(new NoRespondersError(message.subject));
  }

  #routeFor(subject: string): Route {
    let route = this.#routes.get(subject);
    if (route === undefined) {
      route = this.#buildRoute(subject);
      if (this.#routes.size >= MAX_CACHED_ROUTES) this.#routes.clear();
      this.#routes.set(subject, route);
    }
    return route;
  }

  #buildRoute(subject: string): Route {
    const plain: CoreSubscription[] = [];
    const members = new Map<string, CoreSubscription[]>();
    for (const subscription of this.#subscriptions) {
      if (!subjectMatches(subscription.pattern, subject)) continue;
      if (subscription.queue === undefined) {
        plain.push(subscription);
      } else {
        const group = members.get(subscription.queue);
        if (group === undefined) members.set(subscription.queue, [subscription]);
        else group.push(subscription);
      }
    }
    const groups = [...members].map(([queue, group]) => ({ members: group, turn: this.#queueTurn(queue) }));
    return { plain, groups };
  }

  #queueTurn(queue: string): { next: number } {
    let turn = this.#queueTurns.get(queue);
    if (turn === undefined) {
      turn = { next: 0 };
      this.#queueTurns.set(queue, turn);
    }
    return turn;
  }
}

interface CoreSubscription {
  readonly pattern: string;
  readonly queue: string | undefined;
  readonly subscriber: Subscriber<BusMessage<unknown>>;
}

/** Who receives a message on one subject. Never mutated, so delivery can iterate it while callbacks (un)subscribe. */
interface Route {
  readonly plain: readonly CoreSubscription[];
  readonly groups: readonly QueueGroup[];
}

/** The members of one queue group whose patterns match a subject (NATS groups by queue name across patterns). */
interface QueueGroup {
  readonly members: readonly CoreSubscription[];
  readonly turn: { next: number };
}

/** Round-robin, skipping a member that unsubscribed while the current message was being delivered. */
function nextMember(group: QueueGroup): CoreSubscription | undefined {
  const { members, turn } = group;
  for (let tries = 0; tries < members.length; tries += 1) {
    const member = members[turn.next % members.length];
    turn.next += 1;
    if (member !== undefined && !member.subscriber.closed) return member;
  }
  return undefined;
}

/** A core message as subscribers see it; `respond` answers the request it carries, if any. */
class CoreMessage<T> implements BusMessage<T> {
  // A private field stays out of logs and JSON.
  readonly #request: PendingRequest | undefined;

  constructor(
    readonly subject: string,
    readonly data: T,
    readonly headers: Headers,
    request: PendingRequest | undefined,
  ) {
    this.#request = request;
  }

  /** Reply headers are dropped: `Bus.request` emits only the reply data. */
  respond<R>(data: R): boolean {
    return this.#request?.answer(data) ?? false;
  }
}

/**
 * One request waiting for its reply. The first answer wins; answers after it, a cancel or a failure
 * are refused. Settling lets go of the requester: a responder may keep the message it answered (the
 * edge remembers answers by send id), and through the requester it would keep the requesting turn's
 * whole subscriber chain alive.
 */
class PendingRequest {
  #requester: Subscriber<unknown> | undefined;
  readonly #deliveries: DeliveryQueue;

  constructor(requester: Subscriber<unknown>, deliveries: DeliveryQueue) {
    this.#requester = requester;
    this.#deliveries = deliveries;
  }

  answer(reply: unknown): boolean {
    const requester = this.#settle();
    if (requester === undefined) return false;
    this.#deliveries.schedule(() => {
      requester.next(reply);
      requester.complete();
    });
    return true;
  }

  fail(error: Error): void {
    this.#settle()?.error(error);
  }

  cancel(): void {
    this.#settle();
  }

  #settle(): Subscriber<unknown> | undefined {
    const requester = this.#requester;
    this.#requester = undefined;
    return requester;
  }
}
