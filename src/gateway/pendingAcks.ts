import type { Logger } from "../log/logger.js";
import type { SendReceipt } from "../../operators/delivery/outboundMessage.js";
import { responseOutcome, type GatewayResponse, type ResponseOutcome } from "../../operators/ingress/frames/responseFrame.js";
import { SendError } from "../wire/index.js";

/** How long to wait before sending again after a `rate_limited` refusal that named no `retry_after_ms`. */
export const RATE_LIMITED_RETRY_MS = 1_000;

/** What a send counts as when the gateway gives no message id of its own (legacy mode). */
export const legacySent: SendReceipt = { messageId: "gw_sent" };

interface PendingAck {
  readonly required: boolean;
  readonly resolve: (receipt: SendReceipt) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * The sends waiting for their `response.v1` by `request_id`. Each settles once: by its ack, a failed
 * write, its timeout, or its connection closing. A required ack that never comes fails the send; a
 * legacy one counts as sent, with a warning (as upstream).
 */
export class PendingAcks {
  readonly #waiting = new Map<string, PendingAck>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  get size(): number {
    return this.#waiting.size;
  }

  /** A waiter for `requestId`, registered before this returns: write the frame after, so even an instant ack finds it. */
  wait(requestId: string, required: boolean, timeoutMs: number): Promise<SendReceipt> {
    return new Promise<SendReceipt>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(requestId);
        this.#settleLost({ required, resolve, reject }, "timeout");
      }, timeoutMs);
      this.#waiting.set(requestId, { required, resolve, reject, timer });
    });
  }

  /** Settles the send `response` answers; an ack nobody waits for (another core's, or one timed out) is ignored. */
  acknowledge(response: GatewayResponse): void {
    const pending = this.#take(response.request_id);
    if (pending === undefined) return;
    const outcome = responseOutcome(response);
    if (outcome.kind === "rejected") this.#logger.warn({ reason: "rejected", code: outcome.code }, "gateway rejected write");
    if (outcome.kind === "unknown") this.#logger.warn({ reason: "unknown_outcome", code: outcome.code }, "gateway write outcome unknown; not retrying");
    const result = ackResult(outcome, pending.required);
    if (result instanceof SendError) pending.reject(result);
    else pending.resolve(result);
  }

  /** The frame for `requestId` could not be written: its send fails (unless it already settled). */
  writeFailed(requestId: string, cause: unknown): void {
    this.#take(requestId)?.reject(new SendError("write_failed", "writing to the gateway failed", { cause }));
  }

  /**
   * Settles every send still waiting when its connection closed. On a connection the keepalive gave
   * up as dead the frame most likely never arrived, so even a legacy send fails (`connection_lost`)
   * at once rather than counting as sent.
   */
  connectionClosed(abandoned: boolean): void {
    for (const requestId of [...this.#waiting.keys()]) {
      const pending = this.#take(requestId) as PendingAck;
      if (abandoned) pending.reject(new SendError("connection_lost", "the gateway connection was lost (no keepalive pong)"));
      else this.#settleLost(pending, "closed");
    }
  }

  #take(requestId: string): PendingAck | undefined {
    const pending = this.#waiting.get(requestId);
    if (pending === undefined) return undefined;
    this.#waiting.delete(requestId);
    clearTimeout(pending.timer);
    return pending;
  }

  /** A waited-for ack that will never come: a failure when required, best effort (counted as sent) in legacy mode. */
  #settleLost(pending: Pick<PendingAck, "required" | "resolve" | "reject">, why: "timeout" | "closed"): void {
    if (pending.required) {
      pending.reject(
        why === "timeout"
          ? new SendError("ack_timeout", "required gateway ACK timed out")
          : new SendError("ack_channel_closed", "required gateway ACK channel closed"),
      );
      return;
    }
    this.#logger.warn({ reason: why === "timeout" ? "ack_timeout" : "ack_channel_closed" }, "legacy gateway reply timed out");
    pending.resolve(legacySent);
  }
}

/**
 * What an ack makes of a send: the gateway's message id; without one, a failure when acks are
 * required (`no_message_id`), else counted as sent; a rejected or unknown outcome fails with its
 * code (unknown outcomes are never retried).
 */
export function ackResult(outcome: ResponseOutcome, required: boolean): SendReceipt | SendError {
  switch (outcome.kind) {
    case "delivered":
      // A `create_topic` is answered with the thread it opened (`thread_id`), maybe with no message id.
      if (outcome.threadId !== undefined) return { messageId: outcome.messageId ?? outcome.threadId, threadId: outcome.threadId };
      if (outcome.messageId !== undefined && outcome.messageId !== "") return { messageId: outcome.messageId };
      return required ? new SendError("no_message_id", "gateway delivered send without a message id") : legacySent;
    case "rejected": {
      // A refusal for now (a rate limit): the same message may go again once the gateway's wait is over.
      const retryAfterMs = outcome.retryAfterMs ?? (outcome.code === "rate_limited" ? RATE_LIMITED_RETRY_MS : undefined);
      return new SendError(outcome.code, `gateway rejected write (${outcome.code}): ${outcome.message}`, retryAfterMs === undefined ? undefined : { retryAfterMs });
    }
    case "unknown":
      return new SendError(outcome.code, `gateway write outcome unknown (${outcome.code}): ${outcome.message}`);
  }
}
