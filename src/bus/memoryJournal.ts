import type { Logger } from "../log/logger.js";
import type { Headers } from "./bus.js";
import { JournalOpenError } from "./errors.js";
import { JournalAppender, readJournal, type JournalLineProblem } from "./journalFile.js";

const FORMAT = "turnstream turn queue";
const VERSION = 1;
/** Corrupt lines logged one by one at start-up; past this, one line counts the rest. */
const LOGGED_PROBLEMS = 20;

/** A message the journal holds unacked, as read back. */
export interface JournaledMessage {
  readonly seq: number;
  readonly subject: string;
  readonly data: unknown;
  readonly headers: Headers;
  readonly msgId: string | undefined;
  /** When it was appended, on the clock of the process that appended it. */
  readonly at: number;
  /** How often it was handed to a consumer. */
  readonly deliveries: number;
}

/** A msgId the duplicate window held, with the sequence it was stored under. */
export interface JournaledMsgId {
  readonly msgId: string;
  readonly seq: number;
  readonly at: number;
}

/** What a journal held when it was opened. */
export interface JournalReplay {
  readonly lastSeq: number;
  /** The latest time any line carries: about when its writer stopped. Undefined for an empty or missing file. */
  readonly lastAt: number | undefined;
  /** Unacked, in sequence order. */
  readonly queued: readonly JournaledMessage[];
  /** MsgIds of acked messages, oldest first. */
  readonly acked: readonly JournaledMsgId[];
}

/** A message to write into a rewritten journal: what `MemoryWorkQueue` keeps for each unacked one. */
export interface QueuedForJournal {
  readonly seq: number;
  readonly subject: string;
  readonly data: unknown;
  readonly headers: Headers;
  readonly msgId: string | undefined;
  readonly at: number;
  readonly deliveryCount: number;
}

/**
 * The embedded bus's turn queue on disk: a write-ahead journal of JSON lines, so what was appended
 * survives the process. One line per append, written before the append is acked; one short line
 * per delivery and per ack, written before the event loop turns (a burst of them with the next
 * append, in one write). Read once at start-up, then rewritten with only what is still queued, and
 * again whenever acked lines dominate.
 *
 * Lines, the first being the header:
 * - `{"journal":"turnstream turn queue","v":1,"seq":41,"t":…}` — the format, the last sequence, when written;
 * - `{"q":42,"t":…,"s":<subject>,"i":"telegram:tg7","n":1,"d":{…}}` — an append: sequence,
 *   time on the bus clock, subject, msgId (if any), headers `h` (if any), deliveries before this
 *   file was written `n` (if any), data;
 * - `{"r":42}` — sequence 42 handed to a consumer (once per delivery);
 * - `{"k":42}` — sequence 42 acked;
 * - `{"m":"telegram:tg6","q":40,"t":…}` — a msgId still inside the duplicate window whose message
 *   was acked (written by a compaction), so a platform's late redelivery still collapses.
 */
export class MemoryJournal {
  readonly path: string;
  readonly #appender: JournalAppender;
  readonly #logger: Logger;
  /** Lines in the file now. */
  #lines = 0;
  /** A write failed: logged once until one succeeds. */
  #failing = false;

  private constructor(path: string, logger: Logger) {
    this.path = path;
    this.#logger = logger;
    this.#appender = new JournalAppender(path, (err) => this.#failed(err));
  }

  /**
   * Reads the journal at `path` (missing: empty), in one linear pass. A torn last line and corrupt
   * lines are logged and skipped. Throws `JournalOpenError` when the file cannot be read or is in a
   * format this version does not know. Nothing is written until `rewrite` or an append.
   */
  static open(path: string, logger: Logger): { journal: MemoryJournal; replay: JournalReplay } {
    const journal = new MemoryJournal(path, logger);
    return { journal, replay: journal.#read() };
  }

  get lines(): number {
    return this.#lines;
  }

  /** Writes an append's line now; throws `JournalWriteError` when it could not (the append must then fail). */
  appended(message: QueuedForJournal): void {
    this.#appender.append(appendLine(message));
    this.#lines += 1;
    this.#failing = false;
  }

  /**
   * Writes an ack's line before the event loop turns (with the next append, or a burst of acks in
   * one write). A failure is logged, not thrown: the message comes back after a restart, where the
   * delivery ledger knows whether its turn completed.
   */
  acked(seq: number): void {
    this.#appender.appendSoon(`{"k":${seq}}\n`);
    this.#lines += 1;
  }

  /**
   * Writes a delivery's line as `acked` does (in a burst, with the next append, at no write of its
   * own), so a message read back after a crash arrives redelivered only if it was handed out.
   */
  delivered(seq: number): void {
    this.#appender.appendSoon(`{"r":${seq}}\n`);
    this.#lines += 1;
  }

  #failed(err: unknown): void {
    if (!this.#failing) this.#logger.warn({ reason: "journal_write_failed", path: this.path, err }, "turn queue journal write failed");
    this.#failing = true;
  }

  /**
   * Replaces the file with a header, the recent acked msgIds and the queued messages (oldest first
   * each). A failure is logged and the old file kept, appends going on into it; returns whether it was rewritten.
   */
  rewrite(lastSeq: number, now: number, acked: Iterable<JournaledMsgId>, queued: Iterable<QueuedForJournal>): boolean {
    let lines = 1;
    const all = function* (): Generator<string> {
      yield `${JSON.stringify({ journal: FORMAT, v: VERSION, seq: lastSeq, t: now })}\n`;
      for (const { msgId, seq, at } of acked) {
        lines += 1;
        yield `{"m":${JSON.stringify(msgId)},"q":${seq},"t":${at}}\n`;
      }
      for (const message of queued) {
        lines += 1;
        yield appendLine(message);
      }
    };
    try {
      this.#appender.rewrite(all());
      this.#lines = lines;
      return true;
    } catch (err) {
      this.#failed(err);
      return false;
    }
  }

  close(): void {
    this.#appender.close();
  }

  #read(): JournalReplay {
    const started = performance.now();
    let lastSeq = 0;
    let lastAt: number | undefined;
    const queued = new Map<number, JournaledMessage>();
    /** Appends with a msgId, in file order (which is time order), acked or not. */
    const appended: JournaledMsgId[] = [];
    const windowed: JournaledMsgId[] = [];
    let problems = 0;
    const seen = (seq: number | undefined, at?: number): void => {
      if (seq !== undefined && seq > lastSeq) lastSeq = seq;
      if (at !== undefined && (lastAt === undefined || at > lastAt)) lastAt = at;
    };
    const report = ({ reason, line }: JournalLineProblem): void => {
      problems += 1;
      if (reason === "journal_torn_line") this.#logger.warn({ reason, path: this.path, line }, "turn queue journal line skipped");
      else if (problems <= LOGGED_PROBLEMS) this.#logger.warn({ reason, path: this.path, line }, "turn queue journal line skipped");
    };
    try {
      readJournal(
        this.path,
        (value, line) => {
          this.#lines += 1;
          if (line === 1 && isHeader(value)) {
            if (value.journal !== FORMAT) throw new JournalOpenError(this.path, "is not a turn queue journal; move it away or use another [pool] state_dir");
            if (value.v !== VERSION) {
              throw new JournalOpenError(this.path, `was written by another turnstream version (journal format ${String(value.v)}, this one reads ${VERSION}); run that version until its queue is empty, or move the file away to start with an empty queue`);
            }
            seen(value.seq, value.t);
          } else if (isAppend(value)) {
            const message: JournaledMessage = { seq: value.q, subject: value.s, data: value.d, headers: value.h ?? {}, msgId: value.i, at: value.t, deliveries: value.n ?? 0 };
            queued.set(message.seq, message);
            if (message.msgId !== undefined) appended.push({ msgId: message.msgId, seq: message.seq, at: message.at });
            seen(value.q, value.t);
          } else if (isAck(value)) {
            queued.delete(value.k);
            seen(value.k);
          } else if (isDelivery(value)) {
            const message = queued.get(value.r);
            if (message !== undefined) queued.set(value.r, { ...message, deliveries: message.deliveries + 1 });
          } else if (isMsgId(value)) {
            windowed.push({ msgId: value.m, seq: value.q, at: value.t });
            seen(value.q, value.t);
          } else report({ reason: "journal_corrupt_line", line });
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
    if (problems > LOGGED_PROBLEMS) {
      this.#logger.warn({ reason: "journal_corrupt_line", path: this.path, more: problems - LOGGED_PROBLEMS }, "turn queue journal line skipped");
    }
    const acked = mergeByTime(windowed, appended.filter(({ seq }) => !queued.has(seq)));
    if (this.#lines > 0) {
      this.#logger.info({ path: this.path, queued: queued.size, lines: this.#lines, skipped: problems, durationMs: Math.round(performance.now() - started) }, "turn queue read from its journal");
    }
    return { lastSeq, lastAt, queued: inSeqOrder([...queued.values()]), acked };
  }
}

function appendLine(message: QueuedForJournal): string {
  let line = `{"q":${message.seq},"t":${message.at},"s":${JSON.stringify(message.subject)}`;
  if (message.msgId !== undefined) line += `,"i":${JSON.stringify(message.msgId)}`;
  if (hasAny(message.headers)) line += `,"h":${JSON.stringify(message.headers)}`;
  if (message.deliveryCount > 0) line += `,"n":${message.deliveryCount}`;
  // `undefined` (not JSON) is stored as null, as NATS would carry no payload.
  return `${line},"d":${JSON.stringify(message.data) ?? "null"}}\n`;
}

function hasAny(headers: Headers): boolean {
  for (const _ in headers) return true;
  return false;
}

/** Appends are written in sequence order; sorted only if a file says otherwise. */
function inSeqOrder(messages: JournaledMessage[]): JournaledMessage[] {
  for (let i = 1; i < messages.length; i++) {
    if (messages[i - 1]!.seq > messages[i]!.seq) return messages.sort((a, b) => a.seq - b.seq);
  }
  return messages;
}

/** Two lists each oldest first, as one. */
function mergeByTime(a: readonly JournaledMsgId[], b: readonly JournaledMsgId[]): JournaledMsgId[] {
  const merged: JournaledMsgId[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]!.at <= b[j]!.at)) merged.push(a[i++]!);
    else merged.push(b[j++]!);
  }
  return merged;
}

interface Header {
  readonly journal: unknown;
  readonly v: unknown;
  readonly seq?: number;
  readonly t?: number;
}

interface AppendRecord {
  readonly q: number;
  readonly t: number;
  readonly s: string;
  readonly i?: string;
  readonly h?: Headers;
  readonly n?: number;
  readonly d: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const isSeq = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value) && value > 0;
const isTime = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

function isHeader(value: unknown): value is Header {
  return isObject(value) && "journal" in value && (value.seq === undefined || value.seq === 0 || isSeq(value.seq)) && (value.t === undefined || isTime(value.t));
}

function isAppend(value: unknown): value is AppendRecord {
  if (!isObject(value) || !isSeq(value.q) || !isTime(value.t) || typeof value.s !== "string" || !("d" in value)) return false;
  if (value.i !== undefined && typeof value.i !== "string") return false;
  if (value.n !== undefined && !(Number.isSafeInteger(value.n) && (value.n as number) >= 0)) return false;
  return value.h === undefined || (isObject(value.h) && Object.values(value.h).every((v) => typeof v === "string"));
}

function isAck(value: unknown): value is { readonly k: number } {
  return isObject(value) && isSeq(value.k);
}

function isDelivery(value: unknown): value is { readonly r: number } {
  return isObject(value) && isSeq(value.r);
}

function isMsgId(value: unknown): value is { readonly m: string; readonly q: number; readonly t: number } {
  return isObject(value) && typeof value.m === "string" && isSeq(value.q) && isTime(value.t);
}
