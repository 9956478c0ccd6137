import { REST, type RateLimitData, type ResponseLike } from "@discordjs/rest";

/** Discord refused a call for now (a 429, or the client's own bucket says to wait): send again after `retryAfterMs`. */
export class DiscordRateLimited extends Error {
  override readonly name = "DiscordRateLimited";
  constructor(
    readonly retryAfterMs: number,
    readonly global: boolean,
    options?: ErrorOptions,
  ) {
    super(`rate limited for ${retryAfterMs} ms`, options);
  }
}

export interface DiscordRestOptions {
  readonly apiRoot: string;
  readonly token: string;
  /** Each request's ceiling. */
  readonly timeoutMs: number;
}

/**
 * The REST client for the port's own reads (channels, recent messages, thread creation, commands):
 * @discordjs/rest as it is, which waits out a 429 and retries a 5xx itself.
 */
export function readerRest(options: DiscordRestOptions): REST {
  return new REST({ api: options.apiRoot, version: "10", timeout: options.timeoutMs }).setToken(options.token);
}

/**
 * The REST client for replies, which the broker's shaper paces and retries: no retry here (a 5xx
 * may have posted the message: its fate is unknown, never sent twice) and a rate limit is thrown
 * at once as `DiscordRateLimited`, never slept on.
 *
 * Library limitation, worked around here only: @discordjs/rest's `RateLimitError` carries
 * `Retry-After` (whole seconds, rounded up) and not the body's exact `retry_after`. So requests go
 * through global `fetch`, a 429's body is read from a clone, and `rejectOnRateLimit` (called right
 * after, for that URL) throws with the body's figure; a limit the client foresees without asking
 * (its bucket is empty) throws with the client's own wait.
 */
export function replyRest(options: DiscordRestOptions): REST {
  const bodyRetryMs = new Map<string, number>();
  const makeRequest = async (url: string, init: RequestInit): Promise<ResponseLike> => {
    const response = await fetch(url, init);
    if (response.status === 429) {
      const body = (await response.clone().json().catch(() => undefined)) as { retry_after?: unknown } | undefined;
      if (typeof body?.retry_after === "number" && Number.isFinite(body.retry_after)) bodyRetryMs.set(url, Math.ceil(body.retry_after * 1000));
    }
    return response as unknown as ResponseLike;
  };
  const rejectOnRateLimit = (data: RateLimitData): boolean => {
    const fromBody = bodyRetryMs.get(data.url);
    bodyRetryMs.delete(data.url);
    throw new DiscordRateLimited(fromBody ?? Math.max(0, Math.ceil(data.retryAfter)), data.global);
  };
  return new REST({
    api: options.apiRoot,
    version: "10",
    timeout: options.timeoutMs,
    retries: 0,
    offset: 0,
    makeRequest: makeRequest as never,
    rejectOnRateLimit,
  }).setToken(options.token);
}

/** Stops a client's sweep timers, so a closed port holds no timer. */
export function stopRest(rest: REST): void {
  rest.clearHashSweeper();
  rest.clearHandlerSweeper();
}
