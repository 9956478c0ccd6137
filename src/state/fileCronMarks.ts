import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import type { Logger } from "../log/logger.js";
import { MemoryCronMarks } from "./cronMarks.js";

/** The file's format version: another one is read as no marks, with a warning. */
const VERSION = 1;

/**
 * Cron marks in a small JSON file in the state dir (`<state_dir>/cron-marks.json`), for the
 * embedded bus: read once when the broker starts, rewritten whole (temp file, fsync, rename) each
 * time a mark moves on — once a minute at most per job. A file that cannot be read or parsed is
 * logged and taken as no marks: `catch_up` then fires nothing late, which is the safe side.
 */
export function fileCronMarks(path: string, logger: Logger): MemoryCronMarks {
  return new MemoryCronMarks({ kind: "file", initial: readMarks(path, logger), changed: (marks) => writeMarks(path, marks, logger) });
}

function readMarks(path: string, logger: Logger): ReadonlyMap<string, number> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") logger.warn({ reason: "read_failed", path, err }, "cron marks not read; no firing is caught up");
    return new Map();
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!isMarksFile(parsed)) throw new Error(`not a version ${VERSION} marks file`);
    return new Map(Object.entries(parsed.marks));
  } catch (err) {
    logger.warn({ reason: "parse_failed", path, err }, "cron marks not read; no firing is caught up");
    return new Map();
  }
}

function writeMarks(path: string, marks: ReadonlyMap<string, number>, logger: Logger): void {
  const temp = `${path}.tmp`;
  try {
    const fd = openSync(temp, "w", 0o600);
    try {
      writeSync(fd, JSON.stringify({ version: VERSION, marks: Object.fromEntries(marks) }));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (err) {
    // The mark stays in memory; only a restart before the next write would miss it.
    logger.warn({ reason: "write_failed", path, err }, "cron marks not written");
  }
}

function isMarksFile(value: unknown): value is { version: number; marks: Record<string, number> } {
  if (typeof value !== "object" || value === null) return false;
  const { version, marks } = value as Record<string, unknown>;
  if (version !== VERSION || typeof marks !== "object" || marks === null) return false;
  return Object.values(marks).every((minute) => Number.isSafeInteger(minute));
}
