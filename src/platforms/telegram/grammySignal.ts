import type { Api } from "grammy";

/** The `AbortSignal` type grammY's Node build declares: the abort-controller package's. */
export type GrammySignal = NonNullable<Parameters<Api["getMe"]>[0]>;

/**
 * Node's own `AbortSignal` as grammY's methods declare theirs: grammY only listens for its abort
 * event (it aborts its own controller then), which Node's signal fires, so the cast holds.
 */
export function grammySignal(signal: AbortSignal): GrammySignal {
  return signal as unknown as GrammySignal;
}
