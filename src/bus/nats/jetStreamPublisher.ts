import { JetStreamApiError, JetStreamError, type ApiError, type PubAck } from "@nats-io/jetstream";
import {
  ClosedConnectionError,
  createInbox,
  NoRespondersError,
  PermissionViolationError,
  TimeoutError,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  type Subscription,
} from "@nats-io/transport-node";
import type { Subscription as RxSubscription } from "rxjs";
import { statusChanges } from "./connectionStatus.js";
import { isNoRespondersStatus } from "./noRespondersStatus.js";
import { publishWithin } from "./publishWithin.js";

/** One publish waiting for the stream's ack. */
interface PendingAck {
  readonly subject: string;
  /** `performance.now()` after which it fails with TimeoutError. */
  readonly deadline: number;
  readonly resolve: (ack: PubAck) => void;
  readonly reject: (err: unknown) => void;
}

/**
 * JetStream appends over one reply subscription: what `js.publish` does, for the appends of every
 * event (the turn stream's, the delivery ledger's). `js.publish` is a core request per append — a
 * reply-table entry, a timer, three promises and an async wrapper per layer (~4 µs and ~4–5 KB of
 * garbage each, profiled); here an append is one entry in a Map and one promise, and one timer
 * serves every append (all share one timeout, so the oldest is always the next to expire).
 *
 * Errors are the client's own: the stream's refusal is `JetStreamApiError` (a lost
 * compare-and-set has its `code`), no stream listening `NoRespondersError`, no ack within
 * `timeoutMs` `TimeoutError`, a publish the server refused by permission `PermissionViolationError`,
 * a connection that closed with appends unanswered `ClosedConnectionError`, and a message over
 * the server's `max_payload` the bus's `PayloadTooLargeError`, at once. A reply
 * subscription the server refused (no subscribe permission on `_INBOX.>`) fails every append with
 * that `PermissionViolationError`, at once, rather than each after `timeoutMs`.
 */
export class JetStreamPublisher {
  readonly #nc: NatsConnection;
  readonly #timeoutMs: number;
  /** Reply subjects are `#inbox` + a counter in base 36. */
  readonly #inbox: string;
  readonly #replies: Subscription;
  readonly #status: RxSubscription;
  /** Insertion order is deadline order: every append waits the same `timeoutMs`. */
  readonly #pending = new Map<string, PendingAck>();
  #next = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Why the reply subscription ended (the server refused it, say): no ack can arrive any more, so every append fails with it at once. */
  #broken: unknown;

  constructor(nc: NatsConnection, options: { readonly timeoutMs: number }) {
    this.#nc = nc;
    this.#timeoutMs = options.timeoutMs;
    this.#inbox = `${createInbox()}.`;
    this.#replies = nc.subscribe(`${this.#inbox}*`, { callback: (err, msg) => (err === null ? this.#answer(msg) : this.#break(err)) });
    this.#status = statusChanges(nc).subscribe({
      next: (change) => {
        if (change.type === "error" && change.error instanceof PermissionViolationError && change.error.operation === "publish") {
          this.#failSubject(change.error.subject, change.error);
        }
      },
      complete: () => this.#failAll(new ClosedConnectionError()),
    });
  }

  /** Appends still waiting for their ack. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Publishes `payload` to a stream's subject; resolves with the stream's ack (`duplicate` always set). */
  publish(subject: string, payload: Uint8Array, headers?: MsgHdrs): Promise<PubAck> {
    return new Promise<PubAck>((resolve, reject) => {
      if (this.#broken !== undefined) {
        reject(this.#broken);
        return;
      }
      const token = (this.#next++).toString(36);
      this.#pending.set(token, { subject, deadline: performance.now() + this.#timeoutMs, resolve, reject });
      this.#timer ??= setTimeout(() => this.#expire(), this.#timeoutMs);
      try {
        publishWithin(this.#nc, subject, payload, { reply: this.#inbox + token, headers });
      } catch (err) {
        // A closed connection, an invalid subject, a message over max_payload: nothing was sent.
        this.#pending.delete(token);
        reject(err);
      }
    });
  }

  /** Stops listening for acks; appends still waiting fail with ClosedConnectionError. */
  close(): void {
    this.#status.unsubscribe();
    if (!this.#replies.isClosed()) this.#replies.unsubscribe();
    this.#failAll(new ClosedConnectionError());
  }

  #answer(msg: Msg): void {
    const token = msg.subject.slice(this.#inbox.length);
    const pending = this.#pending.get(token);
    if (pending === undefined) return; // answered after its timeout
    this.#pending.delete(token);
    const { data } = msg;
    if (isNoRespondersStatus(msg)) {
      pending.reject(new NoRespondersError(pending.subject));
      return;
    }
    let reply: { readonly error?: ApiError } & Partial<PubAck>;
    try {
      reply = JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.length).toString("utf8")) as typeof reply;
    } catch (err) {
      pending.reject(new JetStreamError("invalid ack response", { cause: err }));
      return;
    }
    if (reply.error !== undefined) pending.reject(new JetStreamApiError(reply.error));
    else if (typeof reply.stream !== "string" || reply.stream === "" || typeof reply.seq !== "number") pending.reject(new JetStreamError("invalid ack response"));
    else pending.resolve({ stream: reply.stream, seq: reply.seq, duplicate: reply.duplicate === true, domain: reply.domain });
  }

  #expire(): void {
    this.#timer = undefined;
    const now = performance.now();
    for (const [token, pending] of this.#pending) {
      if (pending.deadline > now) {
        this.#timer = setTimeout(() => this.#expire(), pending.deadline - now);
        return;
      }
      this.#pending.delete(token);
      pending.reject(new TimeoutError());
    }
  }

  /** The reply subscription failed (nats.js closes it): what waits fails, and so does every later append. */
  #break(err: unknown): void {
    this.#broken = err;
    this.#failAll(err);
  }

  #failSubject(subject: string, err: Error): void {
    for (const [token, pending] of this.#pending) {
      if (pending.subject !== subject) continue;
      this.#pending.delete(token);
      pending.reject(err);
    }
  }

  #failAll(err: unknown): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const failed = [...this.#pending.values()];
    this.#pending.clear();
    for (const pending of failed) pending.reject(err);
  }
}
