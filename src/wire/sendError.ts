export interface SendErrorOptions extends ErrorOptions {
  /**
   * The gateway refused the write for now and said when to try again (`rejected` with
   * `retry_after_ms`, or `error_code = "rate_limited"`): the same message may be sent again after
   * this many ms. Never set for an `unknown` outcome, which is never retried.
   */
  readonly retryAfterMs?: number;
}

/** The gateway did not post a message (it answered with a failure or was not reachable). */
export class SendError extends Error {
  override readonly name = "SendError";
  readonly retryAfterMs: number | undefined;

  constructor(
    readonly code: string,
    message: string,
    options?: SendErrorOptions,
  ) {
    super(message, options);
    this.retryAfterMs = options?.retryAfterMs;
  }
}
