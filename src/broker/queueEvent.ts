import { retry, tap, throwError, timer, type Observable } from "rxjs";
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

/**
 * Appends an event to the turn stream with message id `turnMsgId(event)`, retrying for a while
 * when the bus is unreachable — a retry of an append that did land is a duplicate, so an event is
 * never queued twice — and logs a collapsed duplicate (several edges, or a gateway's retry).
 */
export function queueEvent(event: GatewayEvent, { bus, subject, logger, retryForMs, stillRunning }: QueueEventOptions): Observable<PersistAck> {
  const firstTry = bus.scheduler.now();
  return bus.persist(subject, event, { msgId: turnMsgId(event) }).pipe(
    retry({
      delay: (err: unknown, attempt: number) => {
        if (bus.scheduler.now() - firstTry > retryForMs || !stillRunning()) return throwError(() => err);
        const delayMs = Math.min(250 * 2 ** (attempt - 1), 5_000);
        logger.warn({ reason: "queue_retry", event_id: event.event_id, attempt, delayMs, err }, "queueing an event failed; retrying");
        return timer(delayMs, bus.scheduler);
      },
    }),
    tap((ack) => {
      if (ack.duplicate) {
        logger.info({ decision: "suppressed", reason: "duplicate", platform: event.platform, event_id: event.event_id }, "duplicate event collapsed");
      }
    }),
  );
}
