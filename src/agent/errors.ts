/** Why a `reply` tool call could not become bubbles. */
export type ReplyInputProblem = "malformed" | "over_cap" | "too_long" | "empty_turn";

/**
 * The model's `reply` input was unusable. The message is meant for the model (it goes back as the
 * tool result so the model can try again); it names counts and fields, never the model's text.
 */
export class ReplyInputError extends Error {
  override readonly name = "ReplyInputError";
  constructor(
    readonly problem: ReplyInputProblem,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Why a chat-completions request failed. */
export type ModelRequestProblem = "http_status" | "network" | "timeout" | "bad_response";

/**
 * A chat-completions request failed. `message` is short and safe to show a user; `detail` (the
 * provider's own error text, truncated) is for logs only.
 */
export class ModelRequestError extends Error {
  override readonly name = "ModelRequestError";
  constructor(
    readonly problem: ModelRequestProblem,
    message: string,
    readonly status?: number,
    readonly detail?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** `turnstream agent` settings that cannot work: one line per problem. */
export class AgentSettingsError extends Error {
  override readonly name = "AgentSettingsError";
  constructor(readonly problems: readonly string[]) {
    super(problems.join("; "));
  }
}

/** The ACP connection to the client is gone (stdin ended or stdout failed): nothing more can be sent. */
export class AgentConnectionClosedError extends Error {
  override readonly name = "AgentConnectionClosedError";
  constructor(options?: ErrorOptions) {
    super("the ACP connection is closed", options);
  }
}

/** The session's `turnstream` MCP server could not be reached (started, connected, its tools listed). */
export class TurnstreamServerError extends Error {
  override readonly name = "TurnstreamServerError";
}
