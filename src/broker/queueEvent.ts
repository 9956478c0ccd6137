import { Subscription, type Unsubscribable } from "rxjs";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import type { Bus, PersistAck } from "../bus/bus.js";
import type { Logger } from "../log/logger.js";
import { subjectToken } from "../wire/index.js";

export interface QueueEventOptions {
  readonly bus: Bus;
  /** The event's partition subject (`subjects.turn(partition)`). */
  readonly subject: string;
  readonly logger: Logger;
  /** How long to keep retrying an append that failed (the bus between servers). */
  readonly retryForMs: number;
  /** Retrying stops once this says false (the broker is stopping). */
  readonly stillRunning: () => boolean;
}

/**
 * The turn stream's message id of an event: `platform:event_id`, each part as `subjectToken`
 * spells it — a header value holds no CR/LF, and `:` inside a part cannot make two events one.
 * Plain ids (`telegram:12345`) read as they are. Every edge must agree on it: it collapses the
 * copies the gateway broadcasts to each.
 */
export function turnMsgId(event: Pick<GatewayEvent, "platform" | "event_id">): string {
  return `${subjectToken(event.platform)}:${subjectToken(event.event_id)}`;
}

/** How an append ended: acked (perhaps as a duplicate), or given up after retrying for `retryForMs`. */
export type QueueOutcome = { readonly ok: true; readonly ack: PersistAck } | { readonly ok: false; readonly err: unknown };

/**
 * Appends an event to the turn stream with message id `turnMsgId(event)`, retrying for a while
 * when the bus is unreachable — a retry of an append that did land is a duplicate, so an event is
 * never queued twice — and logs a collapsed duplicate (several edges, or a gateway's retry).
 * Reports to `done` exactly once, synchronously when the bus answers at once (the embedded bus),
 * unless the returned handle is unsubscribed first. Callbacks rather than a stream: this runs for
 * every event the edge queues.
 */
export function queueEvent(event: GatewayEvent, options: QueueEventOptions, done: (outcome: QueueOutcome) => void): Unsubscribable {
  const { bus, subject, logger, retryForMs, stillRunning } = options;
  const firstTry = bus.scheduler.now();
  const handle = new Subscription();
  const attempt = (n: number): void => {
    let acked = false;
    handle.add(
      bus.persist(subject, event, { msgId: turnMsgId(event) }).subscribe({
        next: (ack) => {
          acked = true;
          if (ack.duplicate) {
            logger.info({ decision: "suppressed", reason: "duplicate", platform: event.platform, event_id: event.event_id }, "duplicate event collapsed");
          }
          done({ ok: true, ack });
        },
        error: (err: unknown) => {
          if (bus.scheduler.now() - firstTry > retryForMs || !stillRunning()) {
            done({ ok: false, err });
            return;
          }
          const delayMs = Math.min(250 * 2 ** (n - 1), 5_000);
          logger.warn({ reason: "queue_retry", event_id: event.event_id, attempt: n, delayMs, err }, "queueing an event failed; retrying");
          handle.add(bus.scheduler.schedule(() => attempt(n + 1), delayMs));
        },
        // A bus must ack or fail an append; one that did neither must not hold the conversation's appends forever.
        complete: () => {
          if (!acked) done({ ok: false, err: new Error(`the bus completed an append to ${subject} without an ack`) });
        },
      }),
    );
  };
  attempt(1);
  return handle;
}
