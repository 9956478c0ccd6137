import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import { ObjectFileStore } from "./objectFileStore.js";
import type { FileStore } from "../files/fileStore.js";
import {
  connect,
  createInbox,
  NoRespondersError as NatsNoRespondersError,
  TimeoutError,
  type Msg,
  type NatsConnection,
} from "@nats-io/transport-node";
import { Observable, asyncScheduler, defer, type SchedulerLike, type Subscriber } from "rxjs";
import { requestTimeout } from "../requestTimeout.js";
import type { Config } from "../../config/index.js";
import { createLogger, type Logger } from "../../log/logger.js";
import { subjects, type Subjects } from "../../wire/index.js";
import type {
  Bus,
  BusMessage,
  ConsumeOptions,
  DurableMessage,
  PersistAck,
  PersistOptions,
  PublishOptions,
  RequestOptions,
  SubscribeOptions,
} from "../bus.js";
import { BusClosedError, BusSetupError, BusTimeoutError, InvalidSubjectError, NoRespondersError } from "../errors.js";
import { validateSubject } from "../subjectMatch.js";
import { displayUrl, natsConnectOptions } from "./connect.js";
import { statusChanges, type BusConnectionStatus } from "./connectionStatus.js";
import { isNoRespondersStatus } from "./noRespondersStatus.js";
import { consumeDurable, HAND_BACK_DELAY_MS } from "./consumeDurable.js";
import { JetStreamPublisher } from "./jetStreamPublisher.js";
import { publishWithin } from "./publishWithin.js";
import { decodePayload, encodePayload, persistHeaders, toMsgHdrs } from "./natsCodec.js";
import { NatsBusMessage } from "./natsBusMessage.js";
import { JETSTREAM_TIMEOUT_MS, openJetStream } from "./openJetStream.js";
import { ackPendingOf, ensureTurnStream } from "./turnStream.js";

export interface NatsBusOptions {
  readonly bus: Config["bus"];
  readonly logger?: Logger;
  /** Connection name shown by the server's monitoring (default "turnstream"). */
  readonly name?: string;
  /** Time source for request timeouts (default `asyncScheduler`). Keep-alives use the wall clock, as the server does. */
  readonly scheduler?: SchedulerLike;
}

/** JetStream's default `max_ack_pending`. */
const DEFAULT_MAX_ACK_PENDING = 1000;
/** How long `close()` lets the connection drain before closing it outright. */
const DRAIN_TIMEOUT_MS = 5_000;

/**
 * The `Bus` on NATS: core NATS for `publish`/`subscribe`/`request`, JetStream for `persist` and
 * `consume` on the turn stream (WorkQueue retention, deduplicated by `msgId`). Payloads travel as
 * JSON; a payload that does not parse is dropped with a warning. Create it with `NatsBus.connect`.
 */
export class NatsBus implements Bus {
  readonly scheduler: SchedulerLike;
  readonly shared = true;
  readonly handBackDelayMs = HAND_BACK_DELAY_MS;
  /** Files in the JetStream object store bucket `subjects(prefix).filesBucket`, opened on first use. */
  readonly files: FileStore;
  /** The bus's connection, e.g. for `openBucket`. Closed by `close()`. */
  readonly connection: NatsConnection;
  /** The `[bus]` section this bus was set up with. */
  readonly config: Config["bus"];
  /** This deployment's subjects: the turn subjects are the durable ones. */
  readonly #names: Subjects;
  readonly #js: JetStreamClient;
  /** Every `persist`: one reply subscription for all appends instead of a request each. */
  readonly #appends: JetStreamPublisher;
  readonly #jsm: JetStreamManager;
  #connected = true;
  readonly #logger: Logger;
  readonly #live = new Set<Subscriber<unknown>>();
  readonly #pendingRequests = new Set<Subscriber<unknown>>();
  /** Turn subjects `persist` has checked once (at most one per partition). */
  readonly #durableSubjects = new Set<string>();
  #closing: Promise<void> | undefined;

  private constructor(
    connection: NatsConnection,
    config: Config["bus"],
    js: JetStreamClient,
    jsm: JetStreamManager,
    logger: Logger,
    scheduler: SchedulerLike,
  ) {
    this.connection = connection;
    this.config = config;
    this.#js = js;
    this.#appends = new JetStreamPublisher(connection, { timeoutMs: JETSTREAM_TIMEOUT_MS });
    this.#jsm = jsm;
    this.#logger = logger;
    this.scheduler = scheduler;
    this.#names = subjects(config.prefix);
    this.files = new ObjectFileStore(js, { bucket: this.#names.filesBucket, scheduler });
    this.status().subscribe((change) => {
      logStatus(logger, change);
      this.#connected = connectedAfter(change, this.#connected);
    });
    void connection.closed().then((err) => {
      this.#connected = false;
      if (this.#closing !== undefined) return;
      logger.error({ err }, "bus connection closed");
      this.#closing = Promise.resolve();
      this.#endSubscriptions();
    });
  }

  /**
   * Connects to `bus.url`, checks that JetStream is enabled, and creates or checks the turn stream.
   * Every failure is a `BusSetupError` naming the server without credentials.
   */
  static async connect(options: NatsBusOptions): Promise<NatsBus> {
    const { bus, scheduler = asyncScheduler } = options;
    const logger = options.logger ?? createLogger({ level: "silent" });
    const connectOptions = natsConnectOptions(bus, options.name);
    const url = displayUrl(bus.url ?? "");
    let nc: NatsConnection;
    try {
      nc = await connect(connectOptions);
    } catch (err) {
      throw new BusSetupError(`cannot connect to NATS at ${url}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    try {
      const { js, jsm } = await openJetStream(nc, url);
      const { stream, streamSubjects } = subjects(bus.prefix);
      await ensureTurnStream(jsm, {
        name: stream,
        subjects: streamSubjects,
        duplicateWindowMs: bus.duplicate_window_secs * 1000,
      });
      logger.info({ url, server: nc.info?.version, stream }, "bus connected");
      return new NatsBus(nc, bus, js, jsm, logger, scheduler);
    } catch (err) {
      await nc.close().catch(() => undefined);
      throw err;
    }
  }

  /** The server's `max_payload`, as the server it is connected to (or was last) announced it. */
  maxMessageBytes(): number | undefined {
    return this.connection.info?.max_payload;
  }

  /** False from a disconnect (or a stale connection) until the client has reconnected, and once closed. */
  connected(): boolean {
    return this.#connected && this.#closing === undefined;
  }

  ackPending(durable: string): Promise<number> {
    this.#assertOpen();
    return ackPendingOf(this.#jsm, this.#names.stream, durable);
  }

  /** Connection changes, for as long as subscribed; completes when the bus closes. */
  status(): Observable<BusConnectionStatus> {
    return statusChanges(this.connection);
  }

  publish<T>(subject: string, data: T, options?: PublishOptions): void {
    this.#assertOpen();
    validateSubject(subject, { wildcards: false });
    publishWithin(this.connection, subject, encodePayload(data), { headers: toMsgHdrs(options?.headers) });
  }

  subscribe<T>(subject: string, options?: SubscribeOptions): Observable<BusMessage<T>> {
    // A custom Observable: the NATS subscription lives exactly as long as the Observable's.
    return new Observable<BusMessage<T>>((subscriber) => {
      this.#assertOpen();
      validateSubject(subject, { wildcards: true });
      const sub = this.connection.subscribe(subject, {
        queue: options?.queue,
        callback: (err, msg) => {
          if (err !== null) return subscriber.error(err);
          const payload = this.#decode(msg);
          if (payload !== undefined) subscriber.next(new NatsBusMessage<T>(msg, payload.data as T));
        },
      });
      this.#live.add(subscriber);
      void sub.closed.then(() => subscriber.complete());
      return () => {
        this.#live.delete(subscriber);
        if (!sub.isClosed()) sub.unsubscribe();
      };
    });
  }

  request<TReq, TRes>(subject: string, data: TReq, options: RequestOptions): Observable<TRes> {
    const { timeoutMs } = options;
    // A custom Observable: each subscription owns one reply inbox, dropped when the caller stops waiting.
    const reply = new Observable<TRes>((subscriber) => {
      this.#assertOpen();
      validateSubject(subject, { wildcards: false });
      const inbox = createInbox();
      const sub = this.connection.subscribe(inbox, {
        max: 1,
        callback: (err, msg) => {
          if (err !== null) return subscriber.error(err);
          if (isNoRespondersStatus(msg)) return subscriber.error(new NoRespondersError(subject, { cause: new NatsNoRespondersError(subject) }));
          // A reply that does not parse is dropped: the request then times out.
          const payload = this.#decode(msg);
          if (payload === undefined) return;
          subscriber.next(payload.data as TRes);
          subscriber.complete();
        },
      });
      const teardown = () => {
        this.#pendingRequests.delete(subscriber);
        if (!sub.isClosed()) sub.unsubscribe();
      };
      this.#pendingRequests.add(subscriber);
      try {
        publishWithin(this.connection, subject, encodePayload(data), { reply: inbox, headers: toMsgHdrs(options.headers) });
      } catch (err) {
        // Nothing went out (a message over max_payload, say): fail now, and let go of the reply inbox.
        teardown();
        subscriber.error(err);
        return undefined;
      }
      return teardown;
    });
    return reply.pipe(requestTimeout(subject, timeoutMs, this.scheduler));
  }

  /** Only turn subjects are durable: anything else is an `InvalidSubjectError`, as the stream would not store it. */
  persist<T>(subject: string, data: T, options?: PersistOptions): Observable<PersistAck> {
    // A custom Observable: this runs for every event the edge queues, where defer + from + map built three.
    return new Observable<PersistAck>((subscriber) => {
      this.#assertOpen();
      if (!this.#durableSubjects.has(subject)) {
        validateSubject(subject, { wildcards: false });
        this.#assertDurable(subject);
        this.#durableSubjects.add(subject);
      }
      this.#appends.publish(subject, encodePayload(data), persistHeaders(options?.headers, options?.msgId)).then(
        (ack) => {
          subscriber.next({ seq: ack.seq, duplicate: ack.duplicate });
          subscriber.complete();
        },
        (err: unknown) => subscriber.error(persistError(subject, err)),
      );
    });
  }

  consume<T>(filter: string, options: ConsumeOptions): Observable<DurableMessage<T>> {
    return defer(() => {
      this.#assertOpen();
      validateSubject(filter, { wildcards: true });
      this.#assertDurable(filter);
      const { durable, maxAckPending = DEFAULT_MAX_ACK_PENDING } = options;
      if (!Number.isInteger(maxAckPending) || maxAckPending < 1) {
        throw new RangeError(`maxAckPending must be a positive integer, got ${maxAckPending}`);
      }
      const context = {
        js: this.#js,
        jsm: this.#jsm,
        stream: this.#names.stream,
        ackWaitMs: this.config.ack_wait_secs * 1000,
        logger: this.#logger,
      };
      return this.#tracked(consumeDurable<T>(context, { durable, filter, maxAckPending }));
    });
  }

  /**
   * Fails waiting requests with `BusClosedError`, completes every subscription (consumers hand
   * their held messages back first), then drains the connection. Idempotent.
   */
  async close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#endSubscriptions();
      await drain(this.connection);
      this.#appends.close();
    })();
    return this.#closing;
  }

  #endSubscriptions(): void {
    for (const pending of [...this.#pendingRequests]) pending.error(new BusClosedError());
    for (const subscriber of [...this.#live]) subscriber.complete();
  }

  /** `source` completed by `close()`: registered while subscribed. */
  #tracked<T>(source: Observable<T>): Observable<T> {
    return new Observable<T>((subscriber) => {
      this.#live.add(subscriber);
      const subscription = source.subscribe(subscriber);
      return () => {
        this.#live.delete(subscriber);
        subscription.unsubscribe();
      };
    });
  }

  #assertOpen(): void {
    if (this.#closing !== undefined) throw new BusClosedError();
  }

  #assertDurable(subject: string): void {
    if (!this.#names.isTurn(subject)) {
      throw new InvalidSubjectError(subject, `not a durable subject: only ${this.#names.streamSubjects.join(", ")} subjects are stored`);
    }
  }

  #decode(msg: Msg): { data: unknown } | undefined {
    const payload = decodePayload(msg.data);
    if (payload.ok) return payload;
    this.#logger.warn({ reason: payload.reason, subject: msg.subject }, "bus message dropped");
    return undefined;
  }
}

/**
 * An append that failed, in the bus's terms: no ack in time, or no stream listening
 * (`JetStreamPublisher`'s errors); a `PayloadTooLargeError` is already the bus's.
 */
function persistError(subject: string, err: unknown): unknown {
  if (err instanceof TimeoutError) return new BusTimeoutError(subject, JETSTREAM_TIMEOUT_MS, { cause: err });
  if (err instanceof NatsNoRespondersError) return new NoRespondersError(subject, { cause: err });
  return err;
}

async function drain(nc: NatsConnection): Promise<void> {
  if (nc.isClosed()) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<void>((resolve) => (timer = setTimeout(resolve, DRAIN_TIMEOUT_MS)));
  await Promise.race([nc.drain().catch(() => undefined), expired]);
  clearTimeout(timer);
  if (!nc.isClosed()) await nc.close().catch(() => undefined);
}

function logStatus(logger: Logger, change: BusConnectionStatus): void {
  const { type, ...detail } = change;
  const fields = { status: type, ...("error" in detail ? { err: detail.error } : detail) };
  if (type === "reconnected") logger.info(fields, "bus connection status");
  else logger.warn(fields, "bus connection status");
}

/** Whether the client can reach a server after `change`: lost on a disconnect or a stale connection, back on a reconnect. */
function connectedAfter(change: BusConnectionStatus, before: boolean): boolean {
  switch (change.type) {
    case "disconnected":
    case "stale":
    case "reconnecting":
      return false;
    case "reconnected":
      return true;
    default:
      return before;
  }
}
