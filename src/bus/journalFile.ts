import { closeSync, fsyncSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { errnoOf } from "../failure/brokerFailure.js";
import { JournalWriteError } from "./errors.js";

/** A line `readJournal` skipped: torn (the last one, cut off mid-write) or corrupt (anywhere else). */
export interface JournalLineProblem {
  readonly reason: "journal_torn_line" | "journal_corrupt_line";
  /** 1-based. */
  readonly line: number;
}

/** How much of the file is read at a time: a journal is never held as one string. */
const READ_CHUNK = 1 << 20;
const NEWLINE = 0x0a;

/**
 * Reads a JSON-lines journal front to back, once: `each` gets every complete line's parsed value
 * and its 1-based number. A line is complete when its newline was written; a last line without one
 * (the process died writing it) is reported torn, a line that is not JSON corrupt — both skipped,
 * never thrown. Blank lines are skipped silently. A missing file reads as empty; any other error
 * opening or reading it is thrown.
 */
export function readJournal(path: string, each: (value: unknown, line: number) => void, problem: (found: JournalLineProblem) => void): void {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return;
    throw err;
  }
  try {
    const chunk = Buffer.allocUnsafe(READ_CHUNK);
    /** The start of the line being read, when it began in an earlier chunk. */
    let carried: Buffer[] = [];
    let line = 0;
    const take = (bytes: Buffer): void => {
      line += 1;
      if (bytes.length === 0) return;
      let value: unknown;
      try {
        value = JSON.parse(bytes.toString("utf8"));
      } catch {
        problem({ reason: "journal_corrupt_line", line });
        return;
      }
      each(value, line);
    };
    for (let read = readSync(fd, chunk, 0, READ_CHUNK, null); read > 0; read = readSync(fd, chunk, 0, READ_CHUNK, null)) {
      const view = chunk.subarray(0, read);
      let start = 0;
      for (let end = view.indexOf(NEWLINE, start); end !== -1; end = view.indexOf(NEWLINE, start)) {
        const piece = view.subarray(start, end);
        take(carried.length === 0 ? piece : Buffer.concat([...carried, piece]));
        carried = [];
        start = end + 1;
      }
      // Copied: the chunk is read into again.
      if (start < read) carried.push(Buffer.from(view.subarray(start)));
    }
    if (carried.some((piece) => piece.length > 0)) problem({ reason: "journal_torn_line", line: line + 1 });
  } finally {
    closeSync(fd);
  }
}

/**
 * Appends lines to a journal file. `append` writes at once, with one synchronous `write`: once it
 * returns, the line is in the operating system's page cache and survives the process (`kill -9`),
 * though not a power cut (no fsync, as NATS's own `sync_interval`). `appendSoon` is for a line
 * nothing outside the process waits on: it goes out with the next `append`, or at the end of the
 * current job (a microtask) — before the event loop turns, so before any socket could carry
 * news of it — so a burst of them costs one write. Lines keep their order either way.
 *
 * The file and its directory are created by the first write. A write that fails or falls short
 * throws `JournalWriteError` (`appendSoon`'s failures go to `soonFailed`), and the next write
 * starts on a fresh line, so a fragment left behind reads as one corrupt line and never spoils the
 * next.
 */
export class JournalAppender {
  readonly path: string;
  readonly #soonFailed: (err: JournalWriteError) => void;
  #fd: number | undefined;
  #fragmentLeft = false;
  #closed = false;
  /** `appendSoon` lines not written yet. */
  #waiting = "";
  #flushScheduled = false;

  constructor(path: string, soonFailed: (err: JournalWriteError) => void) {
    this.path = path;
    this.#soonFailed = soonFailed;
  }

  append(text: string): void {
    const waiting = this.#waiting;
    this.#waiting = "";
    try {
      this.#write(waiting === "" ? text : waiting + text);
    } catch (err) {
      this.#waiting = waiting + this.#waiting; // tried again with the next write (a line written twice reads the same)
      throw err;
    }
  }

  appendSoon(text: string): void {
    this.#waiting += text;
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    queueMicrotask(this.#flush);
  }

  readonly #flush = (): void => {
    this.#flushScheduled = false;
    if (this.#waiting === "" || this.#closed) return;
    try {
      this.append("");
    } catch (err) {
      this.#soonFailed(err as JournalWriteError);
    }
  };

  /**
   * Replaces the file with `lines` (each ending in a newline) atomically: written to a temp file,
   * fsynced — a rewrite must not turn a power cut into an empty queue — and renamed over it. Lines
   * still waiting are dropped: `lines` is the state they led to. Appends after it go to the new file.
   */
  rewrite(lines: Iterable<string>): void {
    if (this.#closed) throw new JournalWriteError(this.path, "the journal is closed");
    const temp = `${this.path}.tmp`;
    try {
      // A temp file a killed rewrite left keeps its mode when reopened: made anew, it is the owner's only.
      rmSync(temp, { force: true });
      const fd = openFor(temp, "w");
      try {
        let batch = "";
        for (const line of lines) {
          batch += line;
          if (batch.length >= READ_CHUNK) {
            writeFully(fd, batch);
            batch = "";
          }
        }
        if (batch !== "") writeFully(fd, batch);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, this.path);
    } catch (err) {
      throw new JournalWriteError(this.path, errnoOf(err) ?? "rewrite failed", { cause: err });
    }
    this.#waiting = "";
    this.#closeFd();
    this.#fragmentLeft = false;
  }

  /** Writes what waits, then closes; later writes throw. */
  close(): void {
    if (this.#closed) return;
    this.#flush();
    this.#closed = true;
    this.#closeFd();
  }

  #write(text: string): void {
    if (this.#closed) throw new JournalWriteError(this.path, "the journal is closed");
    if (text === "") return;
    const line = this.#fragmentLeft ? `\n${text}` : text;
    try {
      this.#fd ??= openFor(this.path);
      const written = writeSync(this.#fd, line);
      if (written !== Buffer.byteLength(line)) {
        this.#fragmentLeft = true;
        throw new JournalWriteError(this.path, `wrote ${written} of ${Buffer.byteLength(line)} bytes`);
      }
    } catch (err) {
      if (err instanceof JournalWriteError) throw err;
      this.#fragmentLeft = true;
      throw new JournalWriteError(this.path, errnoOf(err) ?? "write failed", { cause: err });
    }
    this.#fragmentLeft = false;
  }

  #closeFd(): void {
    if (this.#fd === undefined) return;
    const fd = this.#fd;
    this.#fd = undefined;
    closeSync(fd);
  }
}

function openFor(path: string, flags: "a" | "w" = "a"): number {
  mkdirSync(dirname(path), { recursive: true });
  return openSync(path, flags, 0o600);
}

function writeFully(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; ) {
    const written = writeSync(fd, bytes, at);
    if (written <= 0) throw new Error(`wrote nothing at byte ${at} of ${bytes.length}`);
    at += written;
  }
}
