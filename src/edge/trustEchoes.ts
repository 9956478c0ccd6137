import { Subject, Subscription, catchError, EMPTY, finalize, ignoreElements, mergeMap } from "rxjs";
import type { OutboundMessage } from "../../operators/delivery/outboundMessage.js";
import { isGroupChannel } from "../../operators/ingress/groupChannel.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import type { Logger } from "../log/logger.js";
import type { Send } from "../pipeline/send.js";

/** The stable line for a trust echo that did not go out; `reason` says why. */
export const TRUST_ECHO_NOT_SENT_LOG = "trust echo not sent";

/** Echoes sent at once: enough that one held by its conversation's limit does not hold the rest up. */
export const TRUST_ECHO_CONCURRENCY = 8;
/** Echoes waiting at most; past it a flood of strangers gets no more (each one dropped is logged). */
export const TRUST_ECHO_BACKLOG = 1_000;

/**
 * The "not on this bot's trusted list" notices an edge owes, posted through the broker's one send
 * path — `beforeSend`, `[rate_limits]` (the conversation's and the bot's buckets) and the gateway's
 * "try again later" — like every other message, never straight to the gateway: 2,000 strangers
 * writing at once are answered at the bot's rate, not in one burst the platform refuses.
 *
 * An echo is a courtesy, ranked below replies: it goes as a proactive send (it takes only a bot
 * token there is now, so people the bot answers go first), a few at a time, at most
 * `TRUST_ECHO_BACKLOG` waiting. Fire-and-forget for the intake, which never waits on one.
 */
export class TrustEchoes {
  readonly #logger: Logger;
  readonly #echoes = new Subject<{ readonly echo: OutboundMessage; readonly event: GatewayEvent }>();
  readonly #sending: Subscription;
  /** Posted and not yet answered or dropped: those waiting and those being sent. */
  #pending = 0;

  constructor(send: Send, logger: Logger) {
    this.#logger = logger;
    // mergeMap holds what exceeds the concurrency in its own queue: `#pending` bounds it.
    this.#sending = this.#echoes
      .pipe(
        mergeMap(
          ({ echo, event }) =>
            send(echo, { sendClass: { group: isGroupChannel(event.channel), human: false } }).pipe(
              ignoreElements(),
              catchError((err: unknown) => {
                logger.warn({ reason: "echo_failed", err }, TRUST_ECHO_NOT_SENT_LOG);
                return EMPTY;
              }),
              finalize(() => (this.#pending -= 1)),
            ),
          TRUST_ECHO_CONCURRENCY,
        ),
      )
      .subscribe();
  }

  /** Queues the echo for `event`'s sender; dropped (logged) past the backlog or once closed. */
  post(echo: OutboundMessage, event: GatewayEvent): void {
    if (this.#sending.closed) return;
    if (this.#pending >= TRUST_ECHO_BACKLOG) {
      this.#logger.warn({ reason: "echo_backlog", event_id: event.event_id, waiting: this.#pending }, TRUST_ECHO_NOT_SENT_LOG);
      return;
    }
    this.#pending += 1;
    this.#echoes.next({ echo, event });
  }

  /** Stops sending: echoes not yet answered are dropped (logged once with their number), a send under way cancelled. */
  close(): void {
    if (this.#sending.closed) return;
    const dropped = this.#pending;
    this.#sending.unsubscribe();
    if (dropped > 0) this.#logger.info({ reason: "stopping", dropped }, "trust echoes dropped at stop");
  }
}
