/** What the Bot API answers a refused call with: `{"ok":false,"error_code","description","parameters"?}`. */
export interface ResponseParameters {
  readonly retry_after?: number;
  readonly migrate_to_chat_id?: number;
}

/**
 * A refused call, carried from wherever the fake decides it to the HTTP answer. The HTTP status is the
 * `error_code`, as Telegram answers.
 */
export class BotApiError extends Error {
  override readonly name = "BotApiError";

  constructor(
    readonly errorCode: number,
    readonly description: string,
    readonly parameters?: ResponseParameters,
    options?: { cause?: unknown },
  ) {
    super(description, options);
  }

  get body(): { ok: false; error_code: number; description: string; parameters?: ResponseParameters } {
    return this.parameters === undefined
      ? { ok: false, error_code: this.errorCode, description: this.description }
      : { ok: false, error_code: this.errorCode, description: this.description, parameters: this.parameters };
  }
}

/**
 * A 400 worded as the Bot API server words TDLib's errors: "Bad Request: " and the message with its first
 * letter lowered, unless the message is an upper-case code (`REACTION_INVALID`, `MESSAGE_TOO_LONG`).
 */
export function badRequest(message: string, options?: { cause?: unknown }): BotApiError {
  const code = message.length >= 2 && (message[1] === "_" || /[A-Z]/.test(message[1] ?? ""));
  const worded = code ? message : message.charAt(0).toLowerCase() + message.slice(1);
  return new BotApiError(400, `Bad Request: ${worded}`, undefined, options);
}

export const unauthorized = (): BotApiError => new BotApiError(401, "Unauthorized");
export const notFound = (): BotApiError => new BotApiError(404, "Not Found");
export const conflict = (description: string): BotApiError => new BotApiError(409, `Conflict: ${description}`);
export const tooManyRequests = (retryAfter: number): BotApiError =>
  new BotApiError(429, `Too Many Requests: retry after ${retryAfter}`, { retry_after: retryAfter });
/** The cloud Bot API's answer to a request over its upload limit (its HTTP front refuses the body, JSON all the same). */
export const requestEntityTooLarge = (): BotApiError => new BotApiError(413, "Request Entity Too Large");
