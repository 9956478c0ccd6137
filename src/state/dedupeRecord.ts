import type { Claim } from "../../operators/ingress/inboundDedupe.js";
import type { RecordStep } from "./recordStep.js";

/** One dedupe key as a shared store keeps it: whose turn holds it, or when it was last seen done. */
export interface DedupeRecord {
  readonly state: "inflight" | "committed";
  /** `platform:event_id` of the event that claimed it ("" when committed without a claim on record). */
  readonly owner: string;
  /** When claimed (in flight) or last seen (committed), in the caller's clock (ms). */
  readonly at: number;
}

type DedupeStep<R> = RecordStep<DedupeRecord, R>;

/** `InboundDedupe.claim` over a stored record, with owners (see `DedupeStore`). */
export function claimStep(current: DedupeRecord | undefined, owner: string, nowMs: number, ttlMs: number): DedupeStep<Claim> {
  if (current?.state === "inflight") return { result: current.owner === owner ? "claimed" : "inflight" };
  if (current !== undefined && nowMs - current.at < ttlMs) return { result: "duplicate", next: { ...current, at: nowMs } };
  return { result: "claimed", next: { state: "inflight", owner, at: nowMs } };
}

/** `InboundDedupe.commit`: remembered for the TTL; with dedupe off (TTL ≤ 0) nothing is kept. */
export function commitStep(current: DedupeRecord | undefined, nowMs: number, ttlMs: number): DedupeStep<void> {
  if (ttlMs <= 0) return { result: undefined, next: null };
  return { result: undefined, next: { state: "committed", owner: current?.owner ?? "", at: nowMs } };
}

/** `InboundDedupe.release`: only the owner's in-flight claim is removed. */
export function releaseStep(current: DedupeRecord | undefined, owner: string): DedupeStep<void> {
  return current?.state === "inflight" && current.owner === owner ? { result: undefined, next: null } : { result: undefined };
}

export function isDedupeRecord(value: unknown): value is DedupeRecord {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { state, owner, at } = value as Record<string, unknown>;
  return (state === "inflight" || state === "committed") && typeof owner === "string" && typeof at === "number" && Number.isFinite(at);
}
