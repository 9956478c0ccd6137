import { catchError, concat, concatMap, defer, EMPTY, finalize, throwError, type Observable } from "rxjs";
import { compositeKey } from "../../operators/dispatch/compositeKey.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { inboundDedupeKey } from "../../operators/ingress/inboundDedupe.js";
import type { DedupeStore } from "../state/dedupeStore.js";
import type { TurnContext } from "./turn.js";

/**
 * Runs a human message's turn unless it is a redelivery of one that already ran (or is running):
 * claimed before the turn, committed after it, released when it failed so a redelivery can run it.
 * The claim's owner is the event (`platform:event_id`, escaped as `compositeKey` does): the same
 * event redelivered after its worker died claims it again, and the delivery ledger decides what to
 * repeat.
 */
export function onceOnly(event: GatewayEvent, context: TurnContext, dedupe: DedupeStore | undefined, turn: () => Observable<never>): Observable<never> {
  const key = event.proactive === true || dedupe === undefined ? undefined : inboundDedupeKey(event);
  if (key === undefined || dedupe === undefined) return turn();
  const owner = compositeKey([event.platform, event.event_id]);
  return dedupe.claim(key, owner, context.scheduler.now()).pipe(
    concatMap((claim) => {
      if (claim !== "claimed") {
        context.logger.info({ reason: claim, event_id: event.event_id, message_id: event.message_id }, "redelivered message skipped");
        context.note?.("duplicate");
        return EMPTY;
      }
      let settled = false;
      // Dedupe bookkeeping after the turn is best effort: a store that failed is logged, never the turn's outcome.
      const noted = (write: Observable<never>) =>
        write.pipe(
          catchError((err: unknown) => {
            context.logger.warn({ reason: "dedupe_write_failed", err }, "inbound dedupe write failed");
            return EMPTY;
          }),
        );
      return concat(
        turn().pipe(
          catchError((err: unknown) => {
            settled = true;
            return concat(noted(dedupe.release(key, owner)), throwError(() => err));
          }),
        ),
        defer(() => {
          settled = true;
          return noted(dedupe.commit(key, context.scheduler.now()));
        }),
      ).pipe(
        finalize(() => {
          if (!settled) dedupe.release(key, owner).subscribe({ error: () => undefined }); // cancelled (shutdown): let a redelivery run it
        }),
      );
    }),
  );
}
