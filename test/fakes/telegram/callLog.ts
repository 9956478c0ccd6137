import type { Params } from "./requestParams.js";

/** How a call's parameters arrived. */
export type ParamEncoding = "json" | "form" | "multipart" | "query";

/** One call the fake received, and how it was answered (filled in when it was). */
export interface RecordedCall {
  /** The method's documented name ("sendMessage"), or the path's as sent when the fake has no such method. */
  readonly method: string;
  readonly params: Params;
  readonly encoding: ParamEncoding;
  /** When it arrived (the fake's clock, ms). */
  readonly at: number;
  /** When it was answered; undefined while it waits (a long poll). */
  answeredAt: number | undefined;
  status: number | undefined;
  ok: boolean | undefined;
  /** The refusal's description, or the description beside a result. */
  description: string | undefined;
  result: unknown;
}

/** Every call, in the order they arrived, for a test's assertions. */
export class CallLog {
  readonly calls: RecordedCall[] = [];

  record(method: string, params: Params, encoding: ParamEncoding, at: number): RecordedCall {
    const call: RecordedCall = { method, params, encoding, at, answeredAt: undefined, status: undefined, ok: undefined, description: undefined, result: undefined };
    this.calls.push(call);
    return call;
  }

  /** The calls of one method (any case), oldest first. */
  of(method: string): RecordedCall[] {
    return this.calls.filter((call) => call.method.toLowerCase() === method.toLowerCase());
  }
}

export function encodingOf(contentType: string | undefined, bodyLength: number): ParamEncoding {
  if (bodyLength === 0) return "query";
  const type = (contentType ?? "").toLowerCase();
  if (type.startsWith("multipart/form-data")) return "multipart";
  if (type.startsWith("application/x-www-form-urlencoded")) return "form";
  return "json";
}
