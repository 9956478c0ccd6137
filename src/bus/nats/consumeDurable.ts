import {
  JetStreamApiCodes,
  JetStreamApiError,
  JetStreamError,
  type ConsumerMessages,
  type ConsumerNotification,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from "@nats-io/jetstream";
import { millis } from "@nats-io/transport-node";
import { Observable } from "rxjs";
import type { Logger } from "../../log/logger.js";
import type { DurableMessage } from "../bus.js";
import { ConsumerLostError } from "./consumerLostError.js";
import { decodePayload } from "./natsCodec.js";
import { NatsDurableMessage, type DeliveryEvents } from "./natsDurableMessage.js";
import { ensureDurable } from "./turnStream.js";

export interface DurableContext {
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly stream: string;
  readonly ackWaitMs: number;
  readonly logger: Logger;
}

export interface DurableRequest {
  readonly durable: string;
  readonly filter: string;
  readonly maxAckPending: number;
}

/** Messages pulled per request: JetStream re-pulls at 75 %, and never holds more than `maxAckPending` anyway. */
const MAX_BATCH = 100;
/** Lifetime of one pull request; the server sends idle heartbeats every half of it. */
export const PULL_EXPIRES_MS = 5_000;
/**
 * How long a message handed back by an ending subscription waits before redelivery. nats-server
 * 2.9 mishandles a redelivery when every waiting pull request is invalid (its subscription gone,
 * or just expired): the redelivery is lost until the next ack wait and the newest message is
 * delivered a second time (`o.sseq--` in `loopAndGatherMsgs`). The server drops pull requests of
 * gone subscriptions within one idle heartbeat (half of `PULL_EXPIRES_MS`); redelivering at three
 * quarters of it also keeps clear of the moment a successor's first pull request expires.
 */
export const HAND_BACK_DELAY_MS = (PULL_EXPIRES_MS * 3) / 4;

/** Notifications that mean the consumer is not getting messages; the rest are routine. */
const TROUBLE = new Set<ConsumerNotification["type"]>([
  "heartbeats_missed",
  "consumer_deleted",
  "consumer_not_found",
  "stream_not_found",
  "no_responders",
  "exceeded_limits",
]);
/** Sent with every pull and every idle heartbeat: too chatty even for debug. */
const ROUTINE = new Set<ConsumerNotification["type"]>(["next", "heartbeat"]);

/**
 * One subscription to a durable pull consumer (created or checked first, see `ensureDurable`).
 * Every delivery is held until acked or naked; held messages are kept alive with `working()` every
 * third of the ack wait, and handed back when the subscription ends (redelivered after
 * `HAND_BACK_DELAY_MS`, see there) — except claimed ones, kept alive on until they are settled. A consumer or stream deleted underneath errors with
 * `ConsumerLostError`; a closed connection completes.
 */
export function consumeDurable<T>(context: DurableContext, request: DurableRequest): Observable<DurableMessage<T>> {
  // A custom Observable: held messages and the JetStream iterator live exactly as long as the subscription.
  return new Observable<DurableMessage<T>>((subscriber) => {
    const held = new Set<NatsDurableMessage<unknown>>();
    let messages: ConsumerMessages | undefined;
    let keepAlive: ReturnType<typeof setInterval> | undefined;
    // After the subscription ended, the keep-alive runs on for claimed messages until the last settles.
    let ended = false;
    const events = deliveryEvents(held, context.logger, request.durable, () => {
      if (ended && held.size === 0) clearInterval(keepAlive);
    });

    const deliver = (msg: JsMsg): void => {
      if (subscriber.closed) {
        quietly(() => msg.nak(HAND_BACK_DELAY_MS)); // arrived while the subscription was ending
        return;
      }
      const payload = decodePayload(msg.data);
      if (!payload.ok) {
        context.logger.warn({ reason: payload.reason, subject: msg.subject, durable: request.durable, seq: msg.seq }, "bus message dropped");
        quietly(() => msg.term());
        return;
      }
      const message = new NatsDurableMessage<T>(msg, payload.data as T, events);
      held.add(message);
      subscriber.next(message);
    };

    const run = async (): Promise<void> => {
      const info = await ensureDurable(context.jsm, { stream: context.stream, ackWaitMs: context.ackWaitMs, ...request });
      if (subscriber.closed) return;
      const consumer = await context.js.consumers.get(context.stream, request.durable);
      if (subscriber.closed) return;
      const started = await consumer.consume({
        max_messages: Math.min(request.maxAckPending, MAX_BATCH),
        expires: PULL_EXPIRES_MS,
        abort_on_missing_resource: true,
        callback: deliver,
      });
      messages = started;
      if (subscriber.closed) {
        await started.close();
        return;
      }
      const ackWaitMs = info.config.ack_wait === undefined ? context.ackWaitMs : millis(info.config.ack_wait);
      keepAlive = setInterval(() => {
        for (const message of held) message.working();
      }, ackWaitMs / 3);
      void logNotifications(started, context.logger, request.durable, context.stream);
      const ended = await started.closed();
      if (subscriber.closed) return;
      if (ended instanceof Error) throw ended;
      subscriber.complete();
    };

    run().catch((err: unknown) => {
      if (subscriber.closed) return;
      const error = lost(err) ? new ConsumerLostError(request.durable, context.stream, { cause: err }) : err;
      context.logger.error({ durable: request.durable, stream: context.stream, err: error }, "bus consumer failed");
      subscriber.error(error);
    });

    return () => {
      ended = true;
      void messages?.close();
      for (const message of [...held]) message.handBack(HAND_BACK_DELAY_MS);
      if (held.size === 0) clearInterval(keepAlive);
    };
  });
}

/**
 * Keeps `held` to the deliveries not yet settled; `removed` is told after each removal. A claimed
 * message whose keep-alive cannot be sent (the connection closed) is dropped from it too: the
 * server redelivers it after its ack wait, and the subscription's keep-alive can stop.
 */
function deliveryEvents(held: Set<NatsDurableMessage<unknown>>, logger: Logger, durable: string, removed: () => void): DeliveryEvents {
  return {
    settled: (message) => {
      held.delete(message);
      removed();
    },
    failed: (action, message, err) => {
      logger.debug({ action, durable, seq: message.seq, err }, "bus ack not sent");
      if (action === "working" && message.claimed && held.delete(message)) removed();
    },
  };
}

/**
 * Whether an error means the stream or consumer no longer exists: an API answer "not found", or the
 * 409 "consumer deleted" status that ends a pull (the only 409 that ends one with `abort_on_missing_resource`).
 */
function lost(err: unknown): boolean {
  if (err instanceof JetStreamApiError) {
    return err.code === JetStreamApiCodes.StreamNotFound || err.code === JetStreamApiCodes.ConsumerNotFound;
  }
  return err instanceof JetStreamError && "code" in err && err.code === 409;
}

async function logNotifications(messages: ConsumerMessages, logger: Logger, durable: string, stream: string): Promise<void> {
  for await (const notification of messages.status()) {
    if (ROUTINE.has(notification.type)) continue;
    const { type, ...detail } = notification;
    const fields = { durable, stream, notification: type, ...detail };
    if (TROUBLE.has(type)) logger.warn(fields, "bus consumer status");
    else logger.debug(fields, "bus consumer status");
  }
}

/** A reply on a connection that is closing may fail; the server's ack wait settles the message then. */
function quietly(reply: () => void): void {
  try {
    reply();
  } catch {
    // The connection is closed or draining.
  }
}
