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
  /**
   * Ids of the messages attempts posted to ask the person in the chat (issue 41), oldest first;
   * absent when none. An attempt that died left its question open: the re-run marks it expired.
   */
  readonly questions?: readonly string[];
}

/** A message an attempt keeps the id of: one it will edit in place (a streaming placeholder), or a question it asked in the chat. */
export interface KeptMessage {
  readonly id: string;
  readonly kind: "placeholder" | "question";
}

/** Question ids a record keeps: a turn asks few, one at a time. */
export const MAX_QUESTIONS = 8;

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

/** `begin`: the record before; a new attempt about to send, unless the event is complete. Placeholders and questions stay until the event completes. */
export function beginStep(current: LedgerRecord | undefined, nowMs: number): LedgerStep<LedgerRecord | undefined> {
  if (current?.state === "complete") return { result: current };
  const before = current ?? NONE;
  const next: LedgerRecord = {
    state: "started",
    attempts: before.attempts + 1,
    delivered: before.delivered,
    updatedAt: nowMs,
    ...(before.placeholders === undefined ? {} : { placeholders: before.placeholders }),
    ...(before.questions === undefined ? {} : { questions: before.questions }),
  };
  return { result: current, next };
}

/**
 * `delivered`: monotonic; a count not above the recorded one writes nothing. `kept`: the acked
 * message is one the attempt will edit in place, or a question it asked — its id is added to
 * `placeholders` or `questions` (once; the oldest go past `MAX_PLACEHOLDERS` / `MAX_QUESTIONS`;
 * an id `isPlaceholderId` refuses is not kept).
 */
export function deliveredStep(current: LedgerRecord | undefined, count: number, nowMs: number, kept?: KeptMessage): LedgerStep<void> {
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`delivered count must be a whole number ≥ 0, got ${count}`);
  const before = current ?? NONE;
  const field = kept?.kind === "question" ? "questions" : "placeholders";
  const ids = before[field] ?? [];
  const adds = kept !== undefined && isPlaceholderId(kept.id) && !ids.includes(kept.id);
  if (count <= before.delivered && !adds) return { result: undefined };
  const next: LedgerRecord = { ...before, delivered: Math.max(count, before.delivered), updatedAt: nowMs };
  if (!adds) return { result: undefined, next };
  return { result: undefined, next: { ...next, [field]: [...ids, kept.id].slice(-(field === "questions" ? MAX_QUESTIONS : MAX_PLACEHOLDERS)) } };
}

/**
 * `complete`: done (created with 0 attempts when nothing was sent); completing twice writes nothing
 * the second time. Placeholder ids go: nothing re-runs a complete event to delete them.
 */
export function completeStep(current: LedgerRecord | undefined, nowMs: number): LedgerStep<void> {
  if (current?.state === "complete") return { result: undefined };
  const { placeholders: _done, questions: _asked, ...before } = current ?? NONE;
  return { result: undefined, next: { ...before, state: "complete", updatedAt: nowMs } };
}

export function isLedgerRecord(value: unknown): value is LedgerRecord {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { state, attempts, delivered, updatedAt, placeholders, questions } = value as Record<string, unknown>;
  const count = (n: unknown): boolean => typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
  return (
    (state === "started" || state === "complete") &&
    count(attempts) &&
    count(delivered) &&
    typeof updatedAt === "number" &&
    Number.isFinite(updatedAt) &&
    (placeholders === undefined || isPlaceholderList(placeholders, MAX_PLACEHOLDERS)) &&
    (questions === undefined || isPlaceholderList(questions, MAX_QUESTIONS))
  );
}

function isPlaceholderList(value: unknown, max: number): boolean {
  return Array.isArray(value) && value.length <= max && value.every((id) => typeof id === "string" && isPlaceholderId(id));
}
