/**
 * The reply tool's local endpoints could not be opened (its socket's directory or path, or a
 * listener). A start-up error: the message is one line saying what to change.
 */
export class ReplyToolEndpointError extends Error {
  override readonly name = "ReplyToolEndpointError";
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** A reply tool connection sent one MCP message longer than the endpoint takes. */
export class MessageTooLargeError extends Error {
  override readonly name = "MessageTooLargeError";
  readonly limit: number;
  constructor(limit: number) {
    super(`an MCP message over ${limit} bytes`);
    this.limit = limit;
  }
}
