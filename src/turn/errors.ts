/** A turn reached a worker that has no way to run it (no agent configured for this broker). */
export class NoAgentError extends Error {
  override readonly name = "NoAgentError";
  constructor(options?: ErrorOptions) {
    super("no agent is wired to this broker", options);
  }
}

/**
 * A turn's first send found the ledger saying its event was completed already (the gateway sent it
 * again after the turn stream's duplicate window): nothing is sent, and the event is settled as done.
 */
export class AlreadyDeliveredError extends Error {
  override readonly name = "AlreadyDeliveredError";
  constructor(options?: ErrorOptions) {
    super("this event was answered already", options);
  }
}
