import { rateLimited, SlackApiError } from "./slackApiError.js";

/** What the next call(s) of a method get instead of their answer. */
export type InjectedFailure =
  /** HTTP 429 with `Retry-After: <seconds>` and `{"ok":false,"error":"ratelimited"}`, as Slack rate-limits. */
  | { readonly retryAfter: number }
  /** HTTP 200 with `{"ok":false,"error":"<code>"}` (`internal_error`, `fatal_error`, `channel_not_found`…). */
  | { readonly error: string }
  /** An outage: this HTTP status (500, 503…) with `{"ok":false,"error":"<error or 'service_unavailable'>"}`. */
  | { readonly httpStatus: number; readonly error?: string };

/** Refusals queued per method, answers delayed, tokens revoked. */
export class FailureInjection {
  private readonly queued = new Map<string, SlackApiError[]>();
  private readonly delays = new Map<string, number>();
  /** Tokens answered `token_revoked` until restored. */
  readonly revoked = new Set<"bot" | "app">();

  failNext(method: string, failure: InjectedFailure, times = 1): void {
    const queue = this.queued.get(method) ?? [];
    for (let i = 0; i < times; i++) queue.push(refusalOf(failure));
    this.queued.set(method, queue);
  }

  take(method: string): SlackApiError | undefined {
    return this.queued.get(method)?.shift();
  }

  /** Delays every later answer of `method` ("*": every method) by `ms`; 0 removes the delay. */
  delay(method: string, ms: number): void {
    if (ms <= 0) this.delays.delete(method);
    else this.delays.set(method, ms);
  }

  delayOf(method: string): number {
    return this.delays.get(method) ?? this.delays.get("*") ?? 0;
  }
}

function refusalOf(failure: InjectedFailure): SlackApiError {
  if ("retryAfter" in failure) return rateLimited(failure.retryAfter);
  if ("httpStatus" in failure) return new SlackApiError(failure.error ?? "service_unavailable", {}, failure.httpStatus);
  return new SlackApiError(failure.error);
}
