import type { ParamEncoding, Params } from "./requestParams.js";

export type TokenKind = "bot" | "app" | "none" | "unknown";

/** One Web API call the fake received, and how it was answered (filled in when it was). */
export interface RecordedCall {
  /** The method as the path named it (`chat.postMessage`). */
  readonly method: string;
  readonly params: Params;
  readonly encoding: ParamEncoding;
  readonly httpMethod: string;
  /** Which of the fake's tokens the call carried (never the token itself). */
  readonly token: TokenKind;
  /** When it arrived (the fake's clock, ms). */
  readonly at: number;
  answeredAt: number | undefined;
  httpStatus: number | undefined;
  ok: boolean | undefined;
  /** The refusal's code (`channel_not_found`, `ratelimited`…). */
  error: string | undefined;
  /** The whole answer body. */
  response: Record<string, unknown> | undefined;
}

/** Every call, in the order they arrived, for a test's assertions. */
export class CallLog {
  readonly calls: RecordedCall[] = [];

  record(call: Pick<RecordedCall, "method" | "params" | "encoding" | "httpMethod" | "token" | "at">): RecordedCall {
    const recorded: RecordedCall = { ...call, answeredAt: undefined, httpStatus: undefined, ok: undefined, error: undefined, response: undefined };
    this.calls.push(recorded);
    return recorded;
  }

  of(method: string): RecordedCall[] {
    return this.calls.filter((call) => call.method === method);
  }
}
