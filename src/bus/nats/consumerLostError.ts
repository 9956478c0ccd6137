/**
 * A durable consumer stopped for good while it was being consumed: its JetStream consumer or the
 * stream was deleted (by an operator, or a stream reset). Subscribing again recreates the consumer.
 */
export class ConsumerLostError extends Error {
  override readonly name = "ConsumerLostError";
  constructor(
    readonly durable: string,
    readonly stream: string,
    options?: ErrorOptions,
  ) {
    super(`durable consumer "${durable}" of stream "${stream}" is gone`, options);
  }
}
