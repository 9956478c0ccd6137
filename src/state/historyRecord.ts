import { appendHistory, withoutPacked, type HistoryEntry } from "../../operators/ingress/groupHistory.js";
import type { RecordStep } from "./recordStep.js";

/** One conversation's group history as a shared store keeps it: the kept messages, oldest first. */
export interface HistoryRecord {
  readonly entries: readonly HistoryEntry[];
}

type HistoryStep = RecordStep<HistoryRecord, void>;

/** One more message kept, at most `limit` (an id already kept is not kept twice: the edge may publish it again). */
export function appendStep(current: HistoryRecord | undefined, entry: HistoryEntry, limit: number): HistoryStep {
  const entries = appendHistory(current?.entries ?? [], entry, limit);
  if (current !== undefined && entries.length === current.entries.length && entries.every((kept: HistoryEntry, i: number) => kept === current.entries[i])) return { result: undefined };
  return { result: undefined, next: entries.length === 0 ? null : { entries } };
}

/** The messages a turn packed are gone; what arrived meanwhile stays. */
export function removeStep(current: HistoryRecord | undefined, packed: readonly HistoryEntry[]): HistoryStep {
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
