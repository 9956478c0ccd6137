/** A developer's operator failed inside a pipeline stage; `cause` holds what it threw. */
export class StageError extends Error {
  override readonly name = "StageError";
  constructor(
    readonly stage: string,
    options?: ErrorOptions,
  ) {
    super(`pipeline stage ${stage} failed`, options);
  }
}

/**
 * A bubble delivery stopped part-way: what was delivered stays delivered, the rest was abandoned.
 * The message counts bubbles and never carries their text.
 */
export class DeliveryIncompleteError extends Error {
  override readonly name = "DeliveryIncompleteError";
  constructor(
    message: string,
    readonly delivered: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The agent's turn ended in an error after its reply was delivered (bubble modes fail such turns). */
export class AgentTurnError extends Error {
  override readonly name = "AgentTurnError";
  constructor(
    message: string,
    /** The delivered reply already showed the user `⚠️ <error>`: no second notice. */
    readonly notified: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
