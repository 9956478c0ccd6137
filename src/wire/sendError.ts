/** The gateway did not post a message (it answered with a failure or was not reachable). */
export class SendError extends Error {
  override readonly name = "SendError";
  constructor(
    readonly code: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
