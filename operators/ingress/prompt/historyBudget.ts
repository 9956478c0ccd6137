import type { HistoryEntry } from "./groupHistory.js";

/**
 * The most a conversation's group history may hold, in bytes of its stored record
 * (`{"entries":[…]}` as JSON in UTF-8): a quarter of NATS's default `max_payload` (1 MiB), so the
 * KV record always fits one message with room to spare, and about 64k tokens of prompt — more
 * would crowd out the conversation it is meant to inform.
 */
export const HISTORY_MAX_BYTES = 256 * 1024;

// `{"entries":[` and `]}` around the entries; each entry costs its JSON and a comma (one too many, counted anyway).
const RECORD_BYTES = 14;

/** The bytes one entry takes in the stored record. */
export function historyEntryBytes(entry: HistoryEntry): number {
  return Buffer.byteLength(JSON.stringify(entry), "utf8") + 1;
}

/** What fitting a history into a byte budget kept and dropped. */
export interface HistoryWithinBytes {
  /** The newest entries that fit, oldest first. */
  readonly entries: HistoryEntry[];
  /** How many of the oldest were dropped to fit. */
  readonly dropped: number;
  /** The record's size with `entries`, at most the budget (counted as `historyEntryBytes` does). */
  readonly bytes: number;
}

/**
 * The history within `maxBytes`, the oldest entries dropped first. Linear in the entries' size.
 * Pure: returns a new array.
 */
export function historyWithinBytes(history: readonly HistoryEntry[], maxBytes: number): HistoryWithinBytes {
  let bytes = RECORD_BYTES;
  let first = history.length;
  while (first > 0) {
    const next = bytes + historyEntryBytes(history[first - 1] as HistoryEntry);
    if (next > maxBytes) break;
    bytes = next;
    first -= 1;
  }
  return { entries: history.slice(first), dropped: first, bytes };
}

/** Whether one entry alone fits a record of `maxBytes`: one that does not is never kept (it would push out everything else). */
export function fitsHistoryBudget(entry: HistoryEntry, maxBytes: number): boolean {
  return RECORD_BYTES + historyEntryBytes(entry) <= maxBytes;
}
