import type { Observable, SchedulerLike } from "rxjs";
import type { FileStore } from "./files/fileStore.js";

/**
 * The one interface the pipeline talks to. `MemoryBus` implements it in process; the NATS
 * implementation (core NATS for fan-out and request/reply, JetStream for durable subjects)
 * implements the same contract, so pipeline code never knows which bus it runs on.
 *
 * Subjects are dot-separated tokens as in NATS. Subscriptions may use `*` (one token) and `>`
 * (one or more trailing tokens). Only `src/wire/subjects.ts` spells subject strings.
 *
 * Payloads are JSON values (no `undefined`, `Date`, `Map`: they do not survive NATS). The
 * in-process bus hands the published object to subscribers without copying it, so publishers and
 * subscribers treat payloads as immutable.
 *
 * Every Observable here is cold: nothing is sent, stored or consumed until it is subscribed.
 */
export interface Bus {
  /** Where time comes from: timeouts, dedupe windows and pacing all read this scheduler. */
  readonly scheduler: SchedulerLike;

  /**
   * Whether other processes share this bus (NATS) rather than one process alone (the embedded
   * bus). On a shared bus an answer can be lost between servers, so a send is asked again, and one
   * conversation's messages may leave through several edges' sockets, so every send waits for its ack.
   */
  readonly shared: boolean;

  /**
   * Whether the bus can reach its server right now; absent on a bus that has none (the embedded
   * one is always connected). Readiness reads it.
   */
  connected?(): boolean;

  /**
   * The largest message the bus carries, payload and headers, in bytes: the NATS server's
   * `max_payload`. Absent (or undefined) where there is no such limit (the embedded bus). A bigger
   * message fails with `PayloadTooLargeError`, at once.
   */
  maxMessageBytes?(): number | undefined;

  /**
   * How long after a `consume()` subscription ends the messages it held become deliverable again
   * (0: at once). A worker taking over a partition waits this long before consuming it, so what the
   * previous owner handed back runs first, in order.
   */
  readonly handBackDelayMs?: number;

  /**
   * How many messages the durable consumer has handed out and not yet seen acked (0 when it does
   * not exist). Only meaningful with `handBackDelayMs`: nothing pending means nothing is on its way back.
   */
  ackPending?(durable: string): Promise<number>;

  /** Fire-and-forget publish on a core subject. Delivered to every plain subscriber and to one member of each queue group. */
  publish<T>(subject: string, data: T, options?: PublishOptions): void;

  /** Messages on matching core subjects, for as long as the Observable is subscribed. */
  subscribe<T>(subject: string, options?: SubscribeOptions): Observable<BusMessage<T>>;

  /**
   * Sends one request and emits the first reply, then completes. Errors with `NoRespondersError`
   * when nobody listens on the subject and with `BusTimeoutError` when no reply arrives within
   * `timeoutMs` (measured on `scheduler`). Cold: each subscription sends its own request.
   */
  request<TReq, TRes>(subject: string, data: TReq, options: RequestOptions): Observable<TRes>;

  /**
   * Appends to a durable subject (a JetStream stream on NATS) when subscribed. A repeated `msgId`
   * inside the duplicate window is not stored again and acks with `duplicate: true`. Emits the ack
   * once. Only subjects from `subjects.turn(…)` are durable.
   */
  persist<T>(subject: string, data: T, options?: PersistOptions): Observable<PersistAck>;

  /**
   * `persist`, answered within the call: offered by a bus that stores synchronously (the embedded
   * one), absent on one that must wait for a server. Returns the ack, or throws what `persist`
   * would error with. Lets the edge queue an event with no stream at all.
   */
  persistNow?<T>(subject: string, data: T, options?: PersistOptions): PersistAck;

  /**
   * Messages of a durable consumer. Every subscription to the same `durable` name shares one
   * cursor: each stored message goes to one subscriber at a time. A message stays stored until
   * `ack()`; `nak()`, or unsubscribing while holding it, makes it available again. A durable name
   * keeps the filter and `maxAckPending` it was created with (`ConsumerConflictError` otherwise).
   * Consumers of one durable subject must not have overlapping filters (JetStream work queues
   * reject that). The in-process bus never redelivers by time; a bus with an ack deadline
   * (JetStream's ack wait) must keep a long turn's message alive.
   */
  consume<T>(filter: string, options: ConsumeOptions): Observable<DurableMessage<T>>;

  /**
   * Where a file a worker sends waits until the edge posted it (`OutboundAttachment.ref`): the
   * embedded bus keeps it in memory, NATS in a JetStream object store, in chunks well under
   * `max_payload`.
   */
  readonly files: FileStore;

  /** Stops all subscriptions (they complete) and refuses further use with `BusClosedError`. */
  close(): Promise<void>;
}

export type Headers = Readonly<Record<string, string>>;

export interface PublishOptions {
  readonly headers?: Headers;
}

export interface SubscribeOptions {
  /** Queue group: each message goes to one member of the group. */
  readonly queue?: string;
}

export interface RequestOptions {
  readonly timeoutMs: number;
  readonly headers?: Headers;
}

export interface PersistOptions {
  /** Deduplication id (`Nats-Msg-Id` on NATS), e.g. `platform:event_id`. */
  readonly msgId?: string;
  readonly headers?: Headers;
}

export interface PersistAck {
  /** Position of the message in its stream; a duplicate reports the original's position. */
  readonly seq: number;
  readonly duplicate: boolean;
}

export interface ConsumeOptions {
  /** Durable consumer name; subscriptions with the same name share delivery. */
  readonly durable: string;
  /** Most messages handed out and not yet acked, per durable consumer (default 1000, as JetStream). */
  readonly maxAckPending?: number;
}

export interface BusMessage<T> {
  readonly subject: string;
  readonly data: T;
  readonly headers: Headers;
  /**
   * Answers a request. Returns false when the message carries no request to answer. Whether an
   * earlier answer already won is only known in process, so callers must not rely on it.
   */
  respond<R>(data: R): boolean;
}

export interface DurableMessage<T> {
  readonly subject: string;
  readonly data: T;
  readonly headers: Headers;
  /** Stream position. */
  readonly seq: number;
  /** 1 on first delivery, incremented on every redelivery. */
  readonly deliveryCount: number;
  readonly msgId: string | undefined;
  /** Removes the message for good. Idempotent. */
  ack(): void;
  /**
   * Hands the message back for redelivery: at once, or after `delayMs` (it stays pending meanwhile,
   * as JetStream's delayed nak). Idempotent; ignored after `ack()`, and an `ack()` after it is ignored.
   */
  nak(delayMs?: number): void;
  /**
   * Keeps the message with this delivery when its subscription ends: the others it held go back
   * for redelivery, this one stays pending (kept alive through the server's ack wait) until
   * `ack()` or `nak()`. For work already under way that must not run a second time elsewhere
   * while it still runs: a turn whose partition moved to another worker. Whoever claims a message
   * settles it. Idempotent; ignored after `ack()` or `nak()`.
   */
  claim(): void;
}
