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
}

type LedgerStep<R> = RecordStep<LedgerRecord, R>;

/** A record nothing was written to yet (what `delivered`/`complete` start from when `begin` never ran: a turn that sent nothing). */
const NONE: LedgerRecord = { state: "started", attempts: 0, delivered: 0, updatedAt: 0 };

/** `begin`: the record before; a new attempt about to send, unless the event is complete. */
export function beginStep(current: LedgerRecord | undefined, nowMs: number): LedgerStep<LedgerRecord | undefined> {
  if (current?.state === "complete") return { result: current };
  const before = current ?? NONE;
  return { result: current, next: { state: "started", attempts: before.attempts + 1, delivered: before.delivered, updatedAt: nowMs } };
}

/** `delivered`: monotonic; a count not above the recorded one writes nothing. */
export function deliveredStep(current: LedgerRecord | undefined, count: number, nowMs: number): LedgerStep<void> {
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`delivered count must be a whole number ≥ 0, got ${count}`);
  const before = current ?? NONE;
  if (count <= before.delivered) return { result: undefined };
  return { result: undefined, next: { ...before, delivered: count, updatedAt: nowMs } };
}

/** `complete`: done (created with 0 attempts when nothing was sent); completing twice writes nothing the second time. */
export function completeStep(current: LedgerRecord | undefined, nowMs: number): LedgerStep<void> {
  if (current?.state === "complete") return { result: undefined };
  return { result: undefined, next: { ...(current ?? NONE), state: "complete", updatedAt: nowMs } };
}

export function isLedgerRecord(value: unknown): value is LedgerRecord {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { state, attempts, delivered, updatedAt } = value as Record<string, unknown>;
  const count = (n: unknown): boolean => typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
  return (state === "started" || state === "complete") && count(attempts) && count(delivered) && typeof updatedAt === "number" && Number.isFinite(updatedAt);
}
