import { catchError, concat, concatMap, defer, EMPTY, forkJoin, map, merge, of, ReplaySubject, share, throwError, type Observable } from "rxjs";
import { markedChunks } from "../../operators/delivery/status/markedMessage.js";
import type { OutboundMessage, SendReceipt } from "../../operators/delivery/outboundMessage.js";
import { compositeKey } from "../../operators/dispatch/compositeKey.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import type { Logger } from "../log/logger.js";
import type { Send, SendOptions } from "../pipeline/send.js";
import type { DeliveryLedger, KeptMessage, LedgerRecord } from "../state/deliveryLedger.js";
import { AlreadyDeliveredError } from "./errors.js";
import { deleteStale, expireStale, recordedPlaceholder, stalePlaceholders, staleQuestions } from "./stalePlaceholders.js";

/**
 * Prefixed to the first message of a re-run whose interrupted attempt had already delivered
 * something (Hermes' "♻️ Recovered reply" marker, in our words): the user may see part of it twice,
 * and is told so instead of being surprised.
 */
export const RECOVERED_REPLY_MARKER =
  "♻️ Recovered reply — a worker stopped while delivering this, so part of it may already have arrived above:";

/**
 * What to do with an event, from its ledger record as it was before this delivery and the bus's
 * delivery count (1: first delivery). `started` is written only just before a turn's first send,
 * so a `started` record means an earlier attempt may have reached the user, and no record on a
 * redelivery means none did:
 * - `run`: first delivery;
 * - `rerun`: redelivered, no earlier attempt got as far as sending — run it plainly;
 * - `rerun_marked`: an earlier attempt began sending — run it once more, marked (marked too when
 *   that attempt died between `started` and the gateway: "may", never silent);
 * - `done`: its turn completed (or failed and was settled) — ack without a new turn;
 * - `exhausted`: the marked re-run began sending and was interrupted too, or the event was
 *   delivered more than `maxAttempts` times — give up (ack, log) rather than loop forever.
 *
 * Attempts that never sent write nothing, so the give-up counts them by `deliveryCount`, which
 * also counts deliveries that never reached a turn (a partition handed over while the event
 * waited in its lane); `maxAttempts` leaves room for those.
 */
export type LedgerVerdict = "run" | "rerun" | "rerun_marked" | "done" | "exhausted";

/** Deliveries after which an event is given up even when none of its attempts sent anything. */
export const maxAttempts = 5;

export function ledgerVerdict(prior: LedgerRecord | undefined, deliveryCount: number): LedgerVerdict {
  if (prior?.state === "complete") return "done";
  if (prior === undefined && deliveryCount <= 1) return "run";
  if (deliveryCount > maxAttempts || (prior !== undefined && prior.attempts >= 2)) return "exhausted";
  return prior !== undefined && (prior.attempts > 0 || prior.delivered > 0) ? "rerun_marked" : "rerun";
}

export interface LedgerSendOptions {
  readonly ledger: DeliveryLedger;
  /** Ledger keys (`platform:event_id`) of the events the turn answers. */
  readonly keys: readonly string[];
  readonly now: () => number;
  /** Prefix the first message with `RECOVERED_REPLY_MARKER`. */
  readonly marked: boolean;
  /** Characters per message on a platform: a marker that would overflow the first message goes alone before it. */
  readonly messageLimit: (platform: string) => number;
  readonly logger: Logger;
}

/**
 * The turn's `send`, keeping the ledger: before the first message is requested it records the
 * attempt (`begin`, durably: a redelivery after anything could have reached the user is marked);
 * after each ack, before the next send, how many messages reached the gateway — and the id of a
 * message sent as a `placeholder` (one the turn will edit in place); it marks a recovered re-run's
 * first message, and deletes the placeholders interrupted attempts left.
 *
 * - The attempt cannot be recorded (shared state unreachable): that send fails with the store's
 *   error and nothing is sent, so the turn is deferred and tried again with its events held —
 *   never lost, never sent without a record a redelivery would need to mark it.
 * - The ledger says every event is complete already (a gateway re-sent it after the turn stream's
 *   duplicate window): every send fails with `AlreadyDeliveredError`, nothing is sent again.
 * - An earlier attempt had begun sending (the same re-send, interrupted): the first message is
 *   marked, and its receipt names the marker (`SendReceipt.marker`) so edits of it keep it. A
 *   marked send that fails leaves the marker for the next message.
 * - Earlier attempts recorded placeholders: each is deleted, best effort, before the first message
 *   (an attempt that died never finished them; they would stay as `…` in the chat). Questions they
 *   asked in the chat are edited to say they expired, their buttons removed (nobody waits on them).
 * - A `delivered` write that fails is logged and never blocks delivery.
 */
export function ledgerSend(send: Send, options: LedgerSendOptions): Send {
  const { ledger, keys, now, logger } = options;
  let delivered = 0;
  let markerPending = options.marked;
  let begun = false;
  let refused: AlreadyDeliveredError | undefined;
  let begin: Observable<void> | undefined;
  // One `begin` per turn, however many sends wait on it; an error lets the next send try again.
  // Made on the first send: stale placeholders are deleted in that message's conversation.
  const beginWith = (first: OutboundMessage): Observable<void> =>
    defer(() => eachKey(keys, (key) => ledger.begin(key, now()))).pipe(
      concatMap((priors) => {
        if (priors.length > 0 && priors.every((prior) => prior?.state === "complete")) throw (refused = new AlreadyDeliveredError());
        if (priors.some((prior) => prior?.state === "started")) markerPending ||= !options.marked;
        // Sends wait on the deletes and edits (never failing), so nothing of this attempt goes out before them.
        return concat(
          deleteStale(send, first, stalePlaceholders(priors), logger),
          expireStale(send, first, staleQuestions(priors), logger),
          defer(() => {
            begun = true;
            return of(undefined);
          }),
        );
      }),
      share({ connector: () => new ReplaySubject<void>(1), resetOnError: true, resetOnComplete: false, resetOnRefCountZero: false }),
    );
  const record = (receipt: SendReceipt, sendOptions: SendOptions | undefined): Observable<SendReceipt> => {
    delivered += 1;
    const count = delivered;
    const kind = sendOptions?.placeholder === true ? "placeholder" : sendOptions?.question === true ? "question" : undefined;
    const id = kind === undefined ? undefined : recordedPlaceholder(receipt, logger);
    const kept: KeptMessage | undefined = kind === undefined || id === undefined ? undefined : { id, kind };
    const written = allWritten(keys, (key) => ledger.delivered(key, count, now(), kept)).pipe(
      catchError((err: unknown) => {
        logger.warn({ reason: "ledger_write_failed", delivered: count, err }, "delivery ledger write failed");
        return EMPTY;
      }),
    );
    return concat(written, of(receipt));
  };
  const sendRecorded = (message: OutboundMessage, sendOptions: SendOptions | undefined) =>
    send(message, sendOptions).pipe(concatMap((receipt) => record(receipt, sendOptions)));
  const sendMarked = (message: OutboundMessage, sendOptions: SendOptions | undefined): Observable<SendReceipt> => {
    if (!markerPending) return sendRecorded(message, sendOptions);
    markerPending = false;
    const [first = RECOVERED_REPLY_MARKER, ...more] = markedChunks(RECOVERED_REPLY_MARKER, [message.content.text], options.messageLimit(message.platform));
    const markedMessage = { ...message, content: { ...message.content, text: first } };
    // Only the marker alone: it is no placeholder, whatever the message it goes before is.
    const markerOptions = more.length === 0 ? sendOptions : sendOptions === undefined ? undefined : { ...sendOptions, placeholder: false };
    const markerSent = sendRecorded(markedMessage, markerOptions).pipe(
      catchError((err: unknown) => {
        markerPending = true; // it never reached the user: the next message carries it
        return throwError(() => err);
      }),
    );
    if (more.length > 0) return markerSent.pipe(concatMap(() => sendRecorded(message, sendOptions)));
    return markerSent.pipe(map((receipt) => ({ ...receipt, marker: RECOVERED_REPLY_MARKER })));
  };
  return (message, sendOptions) =>
    defer(() => {
      if (refused !== undefined) return throwError(() => refused);
      if (begun) return sendMarked(message, sendOptions);
      begin ??= beginWith(message);
      return begin.pipe(concatMap(() => sendMarked(message, sendOptions)));
    });
}

/**
 * Marks each event complete in the ledger (creating its record when the turn sent nothing), then
 * emits once. A write that fails is logged (`ledger_write_failed`) and the stream still emits and
 * completes: the events are settled either way, and a redelivery of one whose record says less
 * is handled by `ledgerVerdict`. `logger` is asked for only when a write failed: a turn's own
 * child logger is made only when something is logged.
 */
export function completeInLedger(
  keys: readonly string[],
  { ledger, now, logger }: { readonly ledger: DeliveryLedger; readonly now: number; readonly logger: () => Logger },
): Observable<void> {
  const written = allWritten(keys, (key) => ledger.complete(key, now)).pipe(
    catchError((err: unknown) => {
      logger().warn({ reason: "ledger_write_failed", err }, "delivery ledger write failed");
      return EMPTY;
    }),
  );
  return concat(written, of(undefined));
}

/**
 * The delivery ledger's key of an event: `platform:event_id`, each part as `compositeKey` escapes
 * it, so a `:` in a platform name cannot make two events one record. Plain ids read as they are.
 */
export function ledgerKey(event: Pick<GatewayEvent, "platform" | "event_id">): string {
  return compositeKey([event.platform, event.event_id]);
}

/** `write` for every key at once, emitting their results in key order once all are in (no keys: at once). */
export function eachKey<R>(keys: readonly string[], write: (key: string) => Observable<R>): Observable<R[]> {
  return keys.length === 0 ? of([]) : forkJoin(keys.map(write));
}

/**
 * `write` for every key at once, completing when all have (no keys: at once); the first error
 * stops the rest. Not `eachKey`: these writes complete without a value, and `forkJoin` of those
 * completes empty.
 */
function allWritten(keys: readonly string[], write: (key: string) => Observable<never>): Observable<never> {
  return merge(...keys.map(write));
}
