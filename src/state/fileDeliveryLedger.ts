import { defer, EMPTY, of, type Observable } from "rxjs";
import { JournalOpenError } from "../bus/errors.js";
import { JournalAppender, readJournal, type JournalLineProblem } from "../bus/journalFile.js";
import type { Logger } from "../log/logger.js";
import type { DeliveryLedger } from "./deliveryLedger.js";
import { StateStoreError } from "./errors.js";
import { beginStep, completeStep, deliveredStep, isLedgerRecord, type KeptMessage, type LedgerRecord } from "./ledgerRecord.js";
import type { RecordStep } from "./recordStep.js";

const FORMAT = "turnstream delivery ledger";
const VERSION = 1;
/** Lines past which the file is rewritten, when also more than `COMPACT_RATIO` times the records kept. */
const COMPACT_MIN_LINES = 10_000;
const COMPACT_RATIO = 4;
/** Records kept past `max` before the oldest are dropped, in one walk. */
const EVICT_BATCH = 1_024;

/**
 * The delivery ledger of the embedded bus with a turn-queue journal: the records of
 * `MemoryDeliveryLedger` (the `max` most recently written), each change also written as one JSON
 * line (`{"k":"telegram:tg7","r":{…}}`, `"r":null` for a removal) before the Observable emits, so
 * a turn the journal brings back after a crash finds what its attempt did — `completed turn not
 * repeated`, or re-run marked — as on NATS. Read at start-up in one pass (a torn last line and
 * corrupt lines skipped and logged), rewritten then and whenever old lines dominate. A write that
 * fails errors the operation with `StateStoreError`, as an unreachable KV bucket would: a `begin`
 * that cannot be recorded sends nothing and the turn is deferred.
 */
export class FileDeliveryLedger implements DeliveryLedger {
  readonly path: string;
  readonly #records = new Map<string, LedgerRecord>();
  readonly #max: number;
  readonly #file: JournalAppender;
  readonly #logger: Logger;
  #lines = 0;
  #compactAfter = COMPACT_MIN_LINES;

  private constructor(path: string, logger: Logger, max: number) {
    this.path = path;
    this.#logger = logger;
    this.#max = max;
    this.#file = new JournalAppender(path, (err) => logger.warn({ reason: "journal_write_failed", path, err }, "delivery ledger journal write failed"));
  }

  /** Reads the ledger at `path` (missing: empty) and rewrites it with what it keeps. Throws `JournalOpenError` when it cannot be read or is in an unknown format. */
  static open(path: string, logger: Logger, options: { readonly max?: number } = {}): FileDeliveryLedger {
    const ledger = new FileDeliveryLedger(path, logger, options.max ?? 10_000);
    ledger.#read();
    ledger.#trim();
    if (ledger.#lines > 0) ledger.#compact();
    return ledger;
  }

  read(key: string): Observable<LedgerRecord | undefined> {
    return defer(() => of(this.#records.get(key)));
  }

  begin(key: string, nowMs: number): Observable<LedgerRecord | undefined> {
    return defer(() => of(this.#write("begin", key, (current) => beginStep(current, nowMs), true)));
  }

  delivered(key: string, count: number, nowMs: number, kept?: KeptMessage): Observable<never> {
    return defer(() => {
      this.#write("delivered", key, (current) => deliveredStep(current, count, nowMs, kept), kept !== undefined);
      return EMPTY;
    });
  }

  complete(key: string, nowMs: number): Observable<never> {
    return defer(() => {
      this.#write("complete", key, (current) => completeStep(current, nowMs));
      return EMPTY;
    });
  }

  /** Further writes fail; reads still answer from memory. */
  close(): void {
    this.#file.close();
  }

  /**
   * Applies the step, writes its record down, then keeps it; called inside `defer`, so a throw
   * errors the Observable. A record a send depends on (`begin`, which must be on disk before the
   * first message leaves; a placeholder id, before the message is edited) is written at once; the
   * rest before the event loop turns, in the same job as the turn queue's ack that follows them
   * (lost together, if at all: the event then comes back and finds `started`).
   */
  #write<R>(operation: string, key: string, step: (current: LedgerRecord | undefined) => RecordStep<LedgerRecord, R>, now = false): R {
    const { result, next } = step(this.#records.get(key));
    if (next === undefined) return result;
    const line = `{"k":${JSON.stringify(key)},"r":${JSON.stringify(next)}}\n`;
    try {
      if (now) this.#file.append(line);
      else this.#file.appendSoon(line);
    } catch (err) {
      throw new StateStoreError("ledger", operation, key, { cause: err });
    }
    this.#lines += 1;
    this.#keep(key, next);
    if (this.#lines > this.#compactAfter && this.#lines > COMPACT_RATIO * this.#records.size) this.#compact();
    return result;
  }

  /**
   * The record (or its removal) as the newest write; the oldest writes go once `max` is passed by
   * a batch, in one walk (a Map walked from its front after many deletes there steps over each
   * deleted entry: a walk per write would cost more the longer it ran). Exactly `max` after a restart.
   */
  #keep(key: string, record: LedgerRecord | null): void {
    this.#records.delete(key);
    if (record === null) return;
    this.#records.set(key, record); // Map order: oldest write first
    if (this.#records.size > this.#max + EVICT_BATCH) this.#trim();
  }

  /** Drops the oldest writes past `max`. */
  #trim(): void {
    for (const oldest of this.#records.keys()) {
      if (this.#records.size <= this.#max) break;
      this.#records.delete(oldest);
    }
  }

  #read(): void {
    const report = ({ reason, line }: JournalLineProblem): void => {
      this.#logger.warn({ reason, path: this.path, line }, "delivery ledger line skipped");
    };
    try {
      readJournal(
        this.path,
        (value, line) => {
          this.#lines += 1;
          if (line === 1 && isHeader(value)) {
            if (value.journal !== FORMAT || value.v !== VERSION) {
              throw new JournalOpenError(this.path, `is not a delivery ledger this version reads (format ${String(value.v)}, this one reads ${VERSION}); move it away to start with an empty ledger`);
            }
          } else if (isEntry(value)) this.#keep(value.k, value.r);
          else report({ reason: "journal_corrupt_line", line });
        },
        (found) => {
          this.#lines += 1;
          report(found);
        },
      );
    } catch (err) {
      if (err instanceof JournalOpenError) throw err;
      throw new JournalOpenError(this.path, "cannot be read", { cause: err });
    }
  }

  #compact(): void {
    const records = this.#records;
    const lines = function* (): Generator<string> {
      yield `${JSON.stringify({ journal: FORMAT, v: VERSION })}\n`;
      for (const [key, record] of records) yield `{"k":${JSON.stringify(key)},"r":${JSON.stringify(record)}}\n`;
    };
    try {
      this.#file.rewrite(lines());
      this.#lines = 1 + records.size;
      this.#compactAfter = COMPACT_MIN_LINES;
    } catch (err) {
      this.#logger.warn({ reason: "journal_write_failed", path: this.path, err }, "delivery ledger journal write failed");
      this.#compactAfter = 2 * this.#lines;
    }
  }
}

function isHeader(value: unknown): value is { readonly journal: unknown; readonly v: unknown } {
  return typeof value === "object" && value !== null && "journal" in value;
}

function isEntry(value: unknown): value is { readonly k: string; readonly r: LedgerRecord | null } {
  if (typeof value !== "object" || value === null) return false;
  const { k, r } = value as Record<string, unknown>;
  return typeof k === "string" && (r === null || isLedgerRecord(r));
}
