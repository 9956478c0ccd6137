/** No reply arrived within the request's timeout. */
export class BusTimeoutError extends Error {
  override readonly name = "BusTimeoutError";
  constructor(
    readonly subject: string,
    readonly timeoutMs: number,
    options?: ErrorOptions,
  ) {
    super(`request on ${subject} timed out after ${timeoutMs} ms`, options);
  }
}

/** A request found nobody listening on its subject. */
export class NoRespondersError extends Error {
  override readonly name = "NoRespondersError";
  constructor(
    readonly subject: string,
    options?: ErrorOptions,
  ) {
    super(`no responders on ${subject}`, options);
  }
}

/**
 * A message over the largest the bus carries (NATS: the server's `max_payload`, payload and
 * headers together). Asking again cannot help: only a smaller message can go.
 */
export class PayloadTooLargeError extends Error {
  override readonly name = "PayloadTooLargeError";
  constructor(
    readonly subject: string,
    /** The message's size, payload and headers, in bytes. */
    readonly bytes: number,
    readonly maxPayloadBytes: number,
    options?: ErrorOptions,
  ) {
    super(`a message of ${bytes} bytes on ${subject} is over the server's max_payload of ${maxPayloadBytes} bytes`, options);
  }
}

/** The bus was closed; nothing more can be published or subscribed. */
export class BusClosedError extends Error {
  override readonly name = "BusClosedError";
  constructor(options?: ErrorOptions) {
    super("bus is closed", options);
  }
}

/** A subject string that is empty, has an empty token or whitespace, or uses a wildcard where none is allowed. */
export class InvalidSubjectError extends Error {
  override readonly name = "InvalidSubjectError";
  constructor(
    readonly subject: string,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(`invalid subject ${JSON.stringify(subject)}: ${reason}`, options);
  }
}

/** A durable consumer name was reused with a different filter or `maxAckPending` than it was created with. */
export class ConsumerConflictError extends Error {
  override readonly name = "ConsumerConflictError";
  constructor(
    readonly durable: string,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(`durable consumer "${durable}" ${reason}`, options);
  }
}

/**
 * The bus could not be set up: the server is unreachable, refuses the credentials, lacks
 * JetStream, or holds a stream or bucket of the same name whose configuration conflicts with what
 * this deployment needs. A start-up error: the message says what to change.
 */
export class BusSetupError extends Error {
  override readonly name = "BusSetupError";
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/**
 * A line could not be written to a journal file (the disk is full, the file was made read-only):
 * on the embedded bus's turn queue the append is refused and nothing is queued, so the edge
 * retries it and its platform is not told the event arrived.
 */
export class JournalWriteError extends Error {
  override readonly name = "JournalWriteError";
  constructor(
    readonly path: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`cannot write ${path}: ${detail}`, options);
  }
}

/**
 * A journal file that cannot be used at start-up: unreadable, or written in a format this version
 * does not know. `problem` completes a sentence about the path ("was written by …").
 */
export class JournalOpenError extends Error {
  override readonly name = "JournalOpenError";
  constructor(
    readonly path: string,
    readonly problem: string,
    options?: ErrorOptions,
  ) {
    super(`${path} ${problem}`, options);
  }
}
