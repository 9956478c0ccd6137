/** One REST request the fake received, and how it was answered (filled in when it was). */
export interface RecordedCall {
  /** The endpoint's name in Discord's docs, camelCased ("createMessage", "startThreadFromMessage"); for a path the fake has no route for, "METHOD /path". */
  readonly route: string;
  readonly method: string;
  /** The path after /api/v10, as sent. */
  readonly path: string;
  /** Path parameters by the docs' names ("channel.id", "message.id", "emoji" decoded). */
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  /** The JSON body (or a multipart body's payload_json), undefined when there was none. */
  readonly body: unknown;
  /** Names of uploaded files (multipart `files[n]`). */
  readonly files: readonly string[];
  readonly userAgent: string | undefined;
  readonly auditLogReason: string | undefined;
  /** When it arrived (the fake's clock, ms). */
  readonly at: number;
  answeredAt: number | undefined;
  status: number | undefined;
  /** Discord's JSON error code of a refusal. */
  code: number | undefined;
  /** A refusal's message. */
  message: string | undefined;
  /** The JSON the fake answered with (undefined for 204). */
  result: unknown;
}

/** Every REST request, in arrival order. */
export class CallLog {
  readonly calls: RecordedCall[] = [];

  record(call: Omit<RecordedCall, "answeredAt" | "status" | "code" | "message" | "result">): RecordedCall {
    const recorded: RecordedCall = { ...call, answeredAt: undefined, status: undefined, code: undefined, message: undefined, result: undefined };
    this.calls.push(recorded);
    return recorded;
  }

  of(route: string): RecordedCall[] {
    return this.calls.filter((call) => call.route === route);
  }
}
