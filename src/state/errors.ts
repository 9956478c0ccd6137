/** Which shared-state store an error came from. */
export type StateStoreName = "triage" | "sessions" | "dedupe" | "ledger" | "rates" | "history" | "cron";

/**
 * A shared-state store could not do its work: the bus failed (`cause` is the client's error) or a
 * stored value has a shape this version does not know (`cause` says which). The message is short
 * and carries no key, since a turn's error may reach a user; `key` and `cause` are for the logs.
 */
export class StateStoreError extends Error {
  override readonly name: string = "StateStoreError";
  constructor(
    readonly store: StateStoreName,
    readonly operation: string,
    readonly key: string | undefined,
    options?: ErrorOptions,
    message = `${store} state: ${operation} failed`,
  ) {
    super(message, options);
  }
}

/** Every compare-and-set attempt of one operation lost to another writer: contention, not bad luck. */
export class StateConflictError extends StateStoreError {
  override readonly name: string = "StateConflictError";
  constructor(
    store: StateStoreName,
    operation: string,
    key: string,
    readonly attempts: number,
  ) {
    super(store, operation, key, undefined, `${store} state: ${operation} conflicted ${attempts} times in a row`);
  }
}

/**
 * Whether `err` (or one of its causes) is a shared-state store failing — NATS KV unreachable, say.
 * Nothing about the event itself is wrong: the broker hands it back and tries again.
 */
export function isStateOutage(err: unknown): boolean {
  for (let cause = err, depth = 0; cause instanceof Error && depth < 8; cause = cause.cause, depth++) {
    if (cause instanceof StateStoreError) return true;
  }
  return false;
}
