import { catchError, defer, EMPTY, exhaustMap, finalize, Subject, type MonoTypeOperatorFunction } from "rxjs";
import { typingIndicator } from "../../../operators/delivery/status/typingIndicator.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import type { TurnContext } from "../turn.js";
import { typingMessage } from "./typingMessage.js";

/**
 * "Typing…" in the event's conversation while the turn runs, on a platform whose capabilities say
 * `typingIndicator` (a native adapter's; a gateway's never do, and nothing is known in legacy
 * mode): a `typing` command through `context.sendStatus` when the turn is subscribed and every
 * `TYPING_RENEW_MS` until it completes, fails or is unsubscribed. Fire-and-forget, beside the turn
 * and not part of it: the turn never waits for one, never counts one as delivered, and a failed one
 * is logged at debug and dropped. A renewal due while the previous one is still on its way is
 * skipped; one on its way when the turn ends is let finish, and nothing is sent after. A
 * proactive turn shows none: it may end in silence, and nobody asked (a cron job, a webhook).
 */
export function withTyping<T>(event: GatewayEvent, context: TurnContext): MonoTypeOperatorFunction<T> {
  return (turn) =>
    defer(() => {
      if (event.proactive || context.capabilities?.(event.platform)?.typingIndicator !== true) return turn;
      const span = new Subject<never>();
      const message = typingMessage(event);
      span
        .pipe(
          typingIndicator({ scheduler: context.scheduler }),
          exhaustMap(() =>
            context.sendStatus(message).pipe(
              catchError((err: unknown) => {
                context.logger.debug({ reason: "typing_failed", err }, "typing indicator not sent");
                return EMPTY;
              }),
            ),
          ),
        )
        .subscribe();
      return turn.pipe(finalize(() => span.complete()));
    });
}
