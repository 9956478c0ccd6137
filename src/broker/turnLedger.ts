import { concatMap, defer, from, map, type Observable } from "rxjs";
import type { OutboundMessage, SendReceipt } from "../../operators/delivery/outboundMessage.js";
import { compositeKey } from "../../operators/dispatch/compositeKey.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import type { Logger } from "../log/logger.js";
import type { Send } from "../pipeline/send.js";
import type { DeliveryLedger, LedgerRecord } from "../state/deliveryLedger.js";
import type { IntakeMessage } from "./partitionIntake.js";

/**
 * Prefixed to the first message of a re-run whose interrupted attempt had already delivered
 * something (Hermes' "♻️ Recovered reply" marker, in our words): the user may see part of it twice,
 * and is told so instead of being surprised.
 */
export const RECOVERED_REPLY_MARKER =
  "♻️ Recovered reply — a worker stopped while delivering this, so part of it may already have arrived above:";

/**
 * What to do with an event, from its ledger record as it was before this attempt:
 * - `run`: first attempt;
 * - `rerun`: an earlier attempt was interrupted before anything reached the user — run it plainly;
 * - `rerun_marked`: an earlier attempt delivered something — run it once more, marked;
 * - `done`: its turn completed (or failed and was settled) — ack without a new turn;
 * - `exhausted`: the marked re-run was interrupted too, or the event keeps being interrupted —
 *   give up (ack, log) rather than loop forever.
 *
 * Attempts that never reached the user (a worker killed before the first send, shared state
 * unreachable) are not held against the event until `maxAttempts`.
 */
export type LedgerVerdict = "run" | "rerun" | "rerun_marked" | "done" | "exhausted";

/** Attempts after which an event is given up even when none of them delivered anything. */
export const maxAttempts = 5;

export function ledgerVerdict(prior: LedgerRecord | undefined): LedgerVerdict {
  if (prior === undefined) return "run";
  if (prior.state === "complete") return "done";
  if ((prior.attempts >= 2 && prior.delivered > 0) || prior.attempts >= maxAttempts) return "exhausted";
  return prior.delivered > 0 ? "rerun_marked" : "rerun";
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
 * The turn's `send`, recording in the ledger how many messages reached the gateway (after each
 * ack, before the next send) and marking a recovered re-run's first message. A ledger write that
 * fails is logged and never blocks delivery.
 */
export function ledgerSend(send: Send, options: LedgerSendOptions): Send {
  let delivered = 0;
  let markerPending = options.marked;
  const record = (receipt: SendReceipt): Observable<SendReceipt> => {
    delivered += 1;
    const count = delivered;
    return from(
      Promise.all(options.keys.map((key) => options.ledger.delivered(key, count, options.now()))).catch((err: unknown) => {
        options.logger.warn({ reason: "ledger_write_failed", delivered: count, err }, "delivery ledger write failed");
      }),
    ).pipe(map(() => receipt));
  };
  const sendRecorded = (message: OutboundMessage) => send(message).pipe(concatMap(record));
  return (message) =>
    defer(() => {
      if (!markerPending) return sendRecorded(message);
      markerPending = false;
      const text = `${RECOVERED_REPLY_MARKER}\n\n${message.content.text}`;
      if ([...text].length <= options.messageLimit(message.platform)) {
        return sendRecorded({ ...message, content: { ...message.content, text } });
      }
      const marker: OutboundMessage = { ...message, content: { ...message.content, text: RECOVERED_REPLY_MARKER } };
      return sendRecorded(marker).pipe(concatMap(() => sendRecorded(message)));
    });
}

/**
 * The delivery ledger's key of an event: `platform:event_id`, each part as `compositeKey` escapes
 * it, so a `:` in a platform name cannot make two events one record. Plain ids read as they are.
 */
export function ledgerKey(event: Pick<GatewayEvent, "platform" | "event_id">): string {
  return compositeKey([event.platform, event.event_id]);
}

export interface AdmitOptions {
  readonly ledger: DeliveryLedger;
  readonly now: number;
  readonly logger: Logger;
  /** How long events wait before they come back when the ledger cannot be read. */
  readonly retryInMs: number;
}

/** What the ledger admits of a turn's events; `deferred` when it could not be read (nothing settled). */
export interface Admission<T extends GatewayEvent> {
  readonly run: readonly IntakeMessage<T>[];
  readonly marked: boolean;
  readonly deferred: boolean;
}

/**
 * Which of a turn's events still need their turn, by the ledger: each is begun there; a completed
 * one is acked without a turn, one whose re-run was interrupted too is given up (acked, logged),
 * the rest run — `marked` when an interrupted attempt had delivered part of its reply. When the
 * ledger cannot be read none runs and none is settled: the caller tries again after `retryInMs`
 * while still holding them, so the session's later events wait behind them (a hand-back would
 * let them overtake), and a redelivery cannot repeat a finished turn.
 */
export async function admitByLedger<T extends GatewayEvent>(
  items: readonly IntakeMessage<T>[],
  { ledger, now, logger, retryInMs }: AdmitOptions,
): Promise<Admission<T>> {
  let records: (LedgerRecord | undefined)[];
  try {
    records = await Promise.all(items.map(({ message }) => ledger.begin(ledgerKey(message.data), now)));
  } catch (err) {
    logger.warn({ reason: "ledger_unavailable", retryInMs, err, event_id: items[0]?.message.data.event_id }, "turn deferred");
    return { run: [], marked: false, deferred: true };
  }
  const run: IntakeMessage<T>[] = [];
  let marked = false;
  items.forEach((item, i) => {
    const verdict = ledgerVerdict(records[i]);
    const { event_id } = item.message.data;
    const { deliveryCount } = item.message;
    if (verdict === "done") {
      logger.info({ reason: "already_delivered", event_id, deliveryCount }, "completed turn not repeated");
      item.message.ack();
    } else if (verdict === "exhausted") {
      logger.warn({ reason: "rerun_exhausted", event_id, deliveryCount }, "interrupted turn not re-run again");
      void ledger.complete(ledgerKey(item.message.data), now).catch(() => undefined);
      item.message.ack();
    } else {
      if (verdict !== "run") logger.info({ reason: "recovered", event_id, marked: verdict === "rerun_marked", deliveryCount }, "interrupted turn re-run");
      marked ||= verdict === "rerun_marked";
      run.push(item);
    }
  });
  return { run, marked, deferred: false };
}
