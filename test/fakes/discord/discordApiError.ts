/** One entry of a field's `_errors` in an Invalid Form Body answer. */
export interface FieldError {
  readonly code: string;
  readonly message: string;
}

/** The `errors` object of a 50035 answer: field names (or array indexes) down to `_errors` lists. */
export interface ErrorTree {
  _errors?: FieldError[];
  [field: string]: ErrorTree | FieldError[] | undefined;
}

/**
 * A refused request, carried from wherever the fake decides it to the HTTP answer: the status, Discord's JSON
 * body (`{"message", "code", "errors"?}`, or a 429's `{"message", "retry_after", "global"}`) and headers.
 */
export class DiscordApiError extends Error {
  override readonly name = "DiscordApiError";

  constructor(
    readonly status: number,
    readonly body: { readonly message: string; readonly code?: number; readonly errors?: ErrorTree; readonly [key: string]: unknown },
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(body.message);
  }

  get code(): number | undefined {
    return this.body.code;
  }
}

const refusal = (status: number, code: number, message: string) => new DiscordApiError(status, { message, code });

// HTTP-level answers carry code 0 and the status in the message, as Discord's do.
export const unauthorized = () => refusal(401, 0, "401: Unauthorized");
export const notFound = () => refusal(404, 0, "404: Not Found");
export const methodNotAllowed = () => refusal(405, 0, "405: Method Not Allowed");

// JSON error codes (docs: Topics › Opcodes and Status Codes › JSON), worded as the API's `message` reads.
export const unknownChannel = () => refusal(404, 10003, "Unknown Channel");
export const unknownGuild = () => refusal(404, 10004, "Unknown Guild");
export const unknownMember = () => refusal(404, 10007, "Unknown Member");
export const unknownMessage = () => refusal(404, 10008, "Unknown Message");
export const unknownUser = () => refusal(404, 10013, "Unknown User");
export const unknownEmoji = () => refusal(400, 10014, "Unknown Emoji");
export const unknownWebhook = () => refusal(404, 10015, "Unknown Webhook");
export const unknownInteraction = () => refusal(404, 10062, "Unknown interaction");
export const alreadyAcknowledged = () => refusal(400, 40060, "Interaction has already been acknowledged.");
export const missingAccess = () => refusal(403, 50001, "Missing Access");
export const notAuthor = () => refusal(403, 50005, "Cannot edit a message authored by another user");
export const emptyMessage = () => refusal(400, 50006, "Cannot send an empty message");
export const missingPermissions = () => refusal(403, 50013, "Missing Permissions");
export const wrongChannelType = () => refusal(400, 50024, "Cannot execute action on this channel type");
export const invalidJson = () => refusal(400, 50109, "The request body contains invalid JSON.");
// OpenAB matches this text (or the code) to join a sibling bot's thread (reference §2.5, §6.2).
export const threadAlreadyCreated = () => refusal(400, 160004, "A thread has already been created for this message.");

export const invalidFormBody = (errors: ErrorTree) => new DiscordApiError(400, { code: 50035, errors, message: "Invalid Form Body" });
