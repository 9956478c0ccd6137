/** The broker is stopping or stopped and takes no new events. */
export class BrokerStoppedError extends Error {
  override readonly name = "BrokerStoppedError";
  constructor(options?: ErrorOptions) {
    super("broker is not running", options);
  }
}
