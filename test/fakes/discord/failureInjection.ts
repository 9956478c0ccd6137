import { DiscordApiError, type ErrorTree } from "./discordApiError.js";
import { rateLimited, type RateLimitAnswer } from "./rateLimits.js";

/** What the next call(s) of a route get instead of their answer: a 429, or any refusal in Discord's shape. */
export type InjectedFailure =
  | ({ readonly status: 429 } & RateLimitAnswer)
  | { readonly status: number; readonly code: number; readonly message: string; readonly errors?: ErrorTree };

/** What a test makes go wrong: the next calls of a route refused, answers delayed, the token revoked. */
export class FailureInjection {
  private readonly failures = new Map<string, InjectedFailure[]>();
  private readonly delays = new Map<string, number>();
  /** While true, every authenticated call is 401 and IDENTIFY/RESUME are closed 4004. */
  tokenRevoked = false;

  failNext(route: string, failure: InjectedFailure, times: number): void {
    const queued = this.failures.get(route) ?? [];
    for (let i = 0; i < times; i++) queued.push(failure);
    this.failures.set(route, queued);
  }

  /** The refusal this call of `route` gets, if one is queued (each is used once). */
  takeFailure(route: string, now: number): DiscordApiError | undefined {
    const failure = this.failures.get(route)?.shift();
    if (!failure) return undefined;
    if (failure.status === 429 && "retryAfter" in failure) return rateLimited(route, failure, now);
    const { status, code, message, errors } = failure as Extract<InjectedFailure, { code: number }>;
    return new DiscordApiError(status, { message, code, ...(errors ? { errors } : {}) });
  }

  /** Delays every later answer of `route` ("*": every route) by `ms`; 0 removes the delay. */
  delay(route: string, ms: number): void {
    if (ms <= 0) this.delays.delete(route);
    else this.delays.set(route, ms);
  }

  delayOf(route: string): number {
    return this.delays.get(route) ?? this.delays.get("*") ?? 0;
  }
}
