import type { RecordStep } from "./recordStep.js";

/** One event's delivery as the ledger keeps it (plain JSON). */
export interface LedgerRecord {
  readonly state: "started" | "complete";
  /** Attempts that reached their first send (`begin` runs just before it; a turn that sends nothing never counts). */
  readonly attempts: number;
  /** The most messages any attempt got acked by the gateway. */
  readonly delivered: number;
  /** When last written, in the caller's clock (ms). */
  readonly updatedAt: number;
  /**
   * Ids of the messages attempts posted to edit in place (a streaming reply's placeholder), oldest
   * first; absent when none. An attempt that died left its message stale: the re-run deletes it.
   */
  readonly placeholders?: readonly string[];
}

/** Placeholder ids a record keeps (one per attempt that streamed; attempts are given up long before). */
export const MAX_PLACEHOLDERS = 8;

/** The longest placeholder id recorded: platform ids are short, and a gateway's answer must not swell a record. */
export const MAX_PLACEHOLDER_ID_CHARS = 256;

/** Whether `id` can be kept as a placeholder id. */
export function isPlaceholderId(id: string): boolean {
  return id.length > 0 && id.length <= MAX_PLACEHOLDER_ID_CHARS;
}

type LedgerStep<R> = RecordStep<LedgerRecord, R>;

/** A record nothing was written to yet (what `delivered`/`complete` start from when `begin` never ran: a turn that sent nothing). */
const NONE: LedgerRecord = { state: "started", attempts: 0, delivered: 0, updatedAt: 0 };

/** `begin`: the record before; a new attempt about to send, unless the event is complete. Placeholders stay until one deletes them for good. */
export function beginStep(current: LedgerRecord | undefined, nowMs: number): LedgerStep<LedgerRecord | undefined> {
  if (current?.state === "complete") return { result: current };
  const before = current ?? NONE;
  const next: LedgerRecord = { state: "started", attempts: before.attempts + 1, delivered: before.delivered, updatedAt: nowMs };
  return { result: current, next: before.placeholders === undefined ? next : { ...next, placeholders: before.placeholders } };
}

/**
 * `delivered`: monotonic; a count not above the recorded one writes nothing. `placeholder`: the
 * acked message is one the attempt will edit in place — its id is added (once; the oldest go past
 * `MAX_PLACEHOLDERS`; an id `isPlaceholderId` refuses is not kept).
 */
export function deliveredStep(current: LedgerRecord | undefined, count: number, nowMs: number, placeholder?: string): LedgerStep<void> {
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`delivered count must be a whole number ≥ 0, got ${count}`);
  const before = current ?? NONE;
  const kept = before.placeholders ?? [];
  const adds = placeholder !== undefined && isPlaceholderId(placeholder) && !kept.includes(placeholder);
  if (count <= before.delivered && !adds) return { result: undefined };
  const next: LedgerRecord = { ...before, delivered: Math.max(count, before.delivered), updatedAt: nowMs };
  return { result: undefined, next: adds ? { ...next, placeholders: [...kept, placeholder].slice(-MAX_PLACEHOLDERS) } : next };
}

/**
 * `complete`: done (created with 0 attempts when nothing was sent); completing twice writes nothing
 * the second time. Placeholder ids go: nothing re-runs a complete event to delete them.
 */
export function completeStep(current: LedgerRecord | undefined, nowMs: number): LedgerStep<void> {
  if (current?.state === "complete") return { result: undefined };
  const { placeholders: _done, ...before } = current ?? NONE;
  return { result: undefined, next: { ...before, state: "complete", updatedAt: nowMs } };
}

export function isLedgerRecord(value: unknown): value is LedgerRecord {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { state, attempts, delivered, updatedAt, placeholders } = value as Record<string, unknown>;
  const count = (n: unknown): boolean => typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
  return (
    (state === "started" || state === "complete") &&
    count(attempts) &&
    count(delivered) &&
    typeof updatedAt === "number" &&
    Number.isFinite(updatedAt) &&
    (placeholders === undefined || isPlaceholderList(placeholders))
  );
}

function isPlaceholderList(value: unknown): boolean {
  return Array.isArray(value) && value.length <= MAX_PLACEHOLDERS && value.every((id) => typeof id === "string" && isPlaceholderId(id));
}
