import { packedSeenHeader, unpackSeen } from "./seenIds.js";

/**
 * One conversation's triage bookkeeping (per `triageKey`), in the exact form a store keeps:
 * plain JSON, small (100 remembered ids in an hour's window ≈ 0.9 KB), no class instances.
 */
export interface TriageState {
  /** The dedupe window's event ids, hashed and packed (`seenIds.ts`); absent when none. */
  readonly seen?: string;
  /** When the last proactive wake happened (scheduler ms); absent before the first. */
  readonly lastWakeMs?: number;
  /** The local calendar day (`YYYY-MM-DD` in the configured zone) that `count` belongs to. */
  readonly day?: string;
  /** Wakes on `day`. */
  readonly count: number;
}

/** A conversation triage has never seen. */
export const EMPTY_TRIAGE_STATE: TriageState = Object.freeze({ count: 0 });

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The newest activity, `max(lastWakeMs, newest seen)`, in ms; `undefined` when there is neither.
 * Seen times are whole seconds, so a conversation may look up to 999 ms older than it is.
 */
export function lastActivityMs(state: TriageState): number | undefined {
  const seen = unpackSeen(state.seen) ?? [];
  const times = seen.map((entry) => entry.atSec * 1000);
  if (state.lastWakeMs !== undefined) times.push(state.lastWakeMs);
  return times.length === 0 ? undefined : Math.max(...times);
}

/** Whether two states hold the same facts (so an evaluation that changed nothing need not write). */
export function sameTriageState(a: TriageState, b: TriageState): boolean {
  return a.seen === b.seen && a.lastWakeMs === b.lastWakeMs && a.day === b.day && a.count === b.count;
}

/**
 * Whether `value` (e.g. parsed from a KV entry) is a well-formed `TriageState`; unknown keys are
 * refused. Checks `seen` without decoding its entries, so a read costs O(1) in remembered ids.
 */
export function isTriageState(value: unknown): value is TriageState {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const state = value as Record<string, unknown>;
  if (!Object.keys(state).every((key) => key === "seen" || key === "lastWakeMs" || key === "day" || key === "count")) return false;
  const { seen, lastWakeMs, day, count } = state;
  return (
    (seen === undefined || (typeof seen === "string" && packedSeenHeader(seen) !== undefined)) &&
    (lastWakeMs === undefined || Number.isSafeInteger(lastWakeMs)) &&
    (day === undefined || (typeof day === "string" && DAY.test(day))) &&
    typeof count === "number" &&
    Number.isSafeInteger(count) &&
    count >= 0
  );
}
