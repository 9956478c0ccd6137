import { BotApiError } from "./botApiError.js";

/** An error the next call(s) of a method get instead of their answer. */
export interface InjectedFailure {
  readonly error_code: number;
  /** Defaults to Telegram's wording for 429 ("Too Many Requests: retry after N"). */
  readonly description?: string;
  readonly retry_after?: number;
}

/**
 * What a test makes go wrong: the next calls of a method refused (429 with `retry_after`, 400, 500…),
 * the token revoked (every call 401 until restored), answers delayed.
 */
export class FailureInjection {
  private readonly failures = new Map<string, BotApiError[]>();
  private readonly delays = new Map<string, number>();
  /** While true, every call is answered 401 Unauthorized, as for a token revoked in BotFather. */
  tokenRevoked = false;

  /** The next `times` calls of `method` (case as documented, e.g. "sendMessage") are refused with `failure`. */
  failNext(method: string, failure: InjectedFailure, times = 1): void {
    const description = failure.description ?? (failure.error_code === 429 ? `Too Many Requests: retry after ${failure.retry_after ?? 1}` : "Internal Server Error");
    const parameters = failure.retry_after === undefined ? undefined : { retry_after: failure.retry_after };
    const queued = this.failures.get(method.toLowerCase()) ?? [];
    for (let i = 0; i < times; i++) queued.push(new BotApiError(failure.error_code, description, parameters));
    this.failures.set(method.toLowerCase(), queued);
  }

  /** The failure this call of `method` gets, if one is queued (each is used once). */
  takeFailure(method: string): BotApiError | undefined {
    return this.failures.get(method.toLowerCase())?.shift();
  }

  /** Delays every later answer of `method` ("*" for every method) by `ms`; 0 removes the delay. */
  delay(method: string, ms: number): void {
    if (ms <= 0) this.delays.delete(method.toLowerCase());
    else this.delays.set(method.toLowerCase(), ms);
  }

  delayOf(method: string): number {
    return this.delays.get(method.toLowerCase()) ?? this.delays.get("*") ?? 0;
  }
}
