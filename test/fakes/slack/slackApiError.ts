/**
 * A refused Web API call, carried from wherever the fake decides it to the HTTP answer. Slack answers
 * refusals with HTTP 200 and `{"ok":false,"error":"<code>"}`; only a rate limit is HTTP 429 (with a
 * `Retry-After` header in seconds), and an injected outage may be a 5xx.
 */
export class SlackApiError extends Error {
  override readonly name = "SlackApiError";

  constructor(
    readonly error: string,
    readonly extra: Readonly<Record<string, unknown>> = {},
    readonly httpStatus = 200,
    readonly retryAfterSeconds?: number,
  ) {
    super(error);
  }

  get body(): Record<string, unknown> {
    return { ok: false, error: this.error, ...this.extra };
  }
}

/** A refusal as Slack's newer argument validation words it: `invalid_arguments` and a `[ERROR]` line per problem. */
export function invalidArguments(...problems: string[]): SlackApiError {
  return new SlackApiError("invalid_arguments", { response_metadata: { messages: problems.map((problem) => `[ERROR] ${problem}`) } });
}

/** HTTP 429 with `Retry-After`, as Slack rate-limits a method. */
export function rateLimited(retryAfterSeconds: number): SlackApiError {
  return new SlackApiError("ratelimited", {}, 429, retryAfterSeconds);
}
