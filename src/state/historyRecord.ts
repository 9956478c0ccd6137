import { appendHistory, withoutPacked, type HistoryEntry } from "../../operators/ingress/prompt/groupHistory.js";
import { fitsHistoryBudget, historyWithinBytes } from "../../operators/ingress/prompt/historyBudget.js";
import type { RecordStep } from "./recordStep.js";

/** One conversation's group history as a shared store keeps it: the kept messages, oldest first. */
export interface HistoryRecord {
  readonly entries: readonly HistoryEntry[];
}

/** What keeping one more message dropped to stay within the record's byte budget (HISTORY_MAX_BYTES or the bus's). */
export interface HistoryKept {
  /** Messages dropped for bytes: the oldest kept ones, or the new one when it alone is over the budget. */
  readonly dropped: number;
  /** The record's size after the append (as historyWithinBytes counts it). */
  readonly bytes: number;
  /** The budget it was kept within. */
  readonly budget: number;
}

/**
 * One more message kept, at most `limit` and `maxBytes` of record, the oldest dropped first (an id
 * already kept is not kept twice: the edge may publish it again). A message that alone is over
 * `maxBytes` is not kept and drops nothing else.
 */
export function appendStep(current: HistoryRecord | undefined, entry: HistoryEntry, limit: number, maxBytes: number): RecordStep<HistoryRecord, HistoryKept> {
  const kept = current?.entries ?? [];
  const appended = appendHistory(kept, entry, limit);
  if (appended.at(-1) === entry && !fitsHistoryBudget(entry, maxBytes)) return { result: { dropped: 1, bytes: historyWithinBytes(kept, maxBytes).bytes, budget: maxBytes } };
  const { entries, dropped, bytes } = historyWithinBytes(appended, maxBytes);
  const result = { dropped, bytes, budget: maxBytes };
  if (current !== undefined && entries.length === current.entries.length && entries.every((e: HistoryEntry, i: number) => e === current.entries[i])) return { result };
  return { result, next: entries.length === 0 ? null : { entries } };
}

/** The messages a turn packed are gone; what arrived meanwhile stays. */
export function removeStep(current: HistoryRecord | undefined, packed: readonly HistoryEntry[]): RecordStep<HistoryRecord, void> {
  if (current === undefined) return { result: undefined };
  const entries = withoutPacked(current.entries, packed);
  if (entries.length === current.entries.length) return { result: undefined };
  return { result: undefined, next: entries.length === 0 ? null : { entries } };
}

export function isHistoryRecord(value: unknown): value is HistoryRecord {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { entries } = value as Record<string, unknown>;
  return Array.isArray(entries) && entries.every(isHistoryEntry);
}

function isHistoryEntry(value: unknown): value is HistoryEntry {
  if (typeof value !== "object" || value === null) return false;
  const { messageId, sender, text, timestamp } = value as Record<string, unknown>;
  return typeof messageId === "string" && typeof sender === "string" && typeof text === "string" && (timestamp === undefined || typeof timestamp === "string");
}
