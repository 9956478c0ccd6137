/** The broker is stopping or stopped and takes no new events. */
export class BrokerStoppedError extends Error {
  override readonly name = "BrokerStoppedError";
  constructor(options?: ErrorOptions) {
    super("broker is not running", options);
  }
}

/** A turn reached a worker that has no way to run it (no agent configured for this broker). */
export class NoAgentError extends Error {
  override readonly name = "NoAgentError";
  constructor(options?: ErrorOptions) {
    super("no agent is wired to this broker", options);
  }
}
