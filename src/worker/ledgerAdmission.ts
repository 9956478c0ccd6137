import { catchError, map, of, type Observable } from "rxjs";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import type { Logger } from "../log/logger.js";
import type { DeliveryLedger, LedgerRecord } from "../state/deliveryLedger.js";
import { completeInLedger, eachKey, ledgerKey, ledgerVerdict } from "../turn/turnLedger.js";
import type { IntakeMessage } from "./partitionIntake.js";

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
  /** Acked without a turn: already delivered (`done`), or re-run too often (`exhausted`). */
  readonly done: number;
  readonly exhausted: number;
  /** Of `run`, how many an interrupted attempt had begun: the ledger's recoveries. */
  readonly recovered: number;
}

/**
 * Which of a turn's events still need their turn, by the ledger. Events on their first delivery
 * run without a read (emitted synchronously: nothing is asked of the ledger). Redelivered ones are
 * read: a completed one is acked without a turn, one given up (`exhausted`) is acked and logged,
 * the rest run — `marked` when an interrupted attempt had begun sending. When the ledger cannot be
 * read none runs and none is settled: the caller tries again after `retryInMs` while still holding
 * them, so the session's later events wait behind them (a hand-back would let them overtake), and
 * a redelivery cannot repeat a finished turn.
 */
export function admitByLedger<T extends GatewayEvent>(items: readonly IntakeMessage<T>[], options: AdmitOptions): Observable<Admission<T>> {
  const { ledger, logger, retryInMs } = options;
  const redelivered = items.filter(({ message }) => message.deliveryCount > 1);
  if (redelivered.length === 0) return of({ run: items, marked: false, deferred: false, done: 0, exhausted: 0, recovered: 0 });
  return eachKey(
    redelivered.map(({ message }) => ledgerKey(message.data)),
    (key) => ledger.read(key),
  ).pipe(
    map((records) => admitted(items, new Map(redelivered.map((item, i) => [item, records[i]])), options)),
    catchError((err: unknown) => {
      logger.warn({ reason: "ledger_unavailable", retryInMs, err, event_id: items[0]?.message.data.event_id }, "turn deferred");
      return of({ run: [], marked: false, deferred: true, done: 0, exhausted: 0, recovered: 0 });
    }),
  );
}

/** Settles what the records say is settled and returns the rest to run. */
function admitted<T extends GatewayEvent>(
  items: readonly IntakeMessage<T>[],
  records: ReadonlyMap<IntakeMessage<T>, LedgerRecord | undefined>,
  { ledger, now, logger }: AdmitOptions,
): Admission<T> {
  const run: IntakeMessage<T>[] = [];
  let marked = false;
  let done = 0;
  let exhausted = 0;
  let recovered = 0;
  for (const item of items) {
    const { event_id } = item.message.data;
    const { deliveryCount } = item.message;
    const verdict = ledgerVerdict(records.get(item), deliveryCount);
    if (verdict === "done") {
      logger.info({ reason: "already_delivered", event_id, deliveryCount }, "completed turn not repeated");
      item.message.ack();
      done += 1;
    } else if (verdict === "exhausted") {
      logger.warn({ reason: "rerun_exhausted", event_id, deliveryCount }, "interrupted turn not re-run again");
      completeInLedger([ledgerKey(item.message.data)], { ledger, now, logger: () => logger }).subscribe();
      item.message.ack();
      exhausted += 1;
    } else {
      if (verdict !== "run") {
        logger.info({ reason: "recovered", event_id, marked: verdict === "rerun_marked", deliveryCount }, "interrupted turn re-run");
        recovered += 1;
      }
      marked ||= verdict === "rerun_marked";
      run.push(item);
    }
  }
  return { run, marked, deferred: false, done, exhausted, recovered };
}
