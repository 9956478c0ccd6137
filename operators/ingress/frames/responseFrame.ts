import * as z from "zod";
import { untrustedText } from "../untrustedText.js";

/** `openab.gateway.response.v1`: the gateway's answer to a reply that carried a `request_id` (protocol §5.2). */
export interface GatewayResponse {
  readonly schema: "openab.gateway.response.v1";
  readonly request_id: string;
  /** The legacy success flag; `false` when the gateway left it out. */
  readonly success: boolean;
  readonly message_id?: string;
  /** Set for `create_topic`. */
  readonly thread_id?: string;
  readonly error?: string;
  /** Newer gateways: `delivered`, `rejected` or `unknown`; any other value is kept and read as unknown. */
  readonly outcome?: string;
  readonly error_code?: string;
  readonly retry_after_ms?: number;
}

const optional = <S extends z.ZodType>(schema: S) => schema.nullish().transform((value) => value ?? undefined);

/** The longest `error_code` kept: it becomes a `SendError`'s code, logged as a token. */
const MAX_ERROR_CODE_CHARS = 64;

/**
 * Unknown fields (`attachment`, future ones) are dropped; `null` counts as absent. `error` and
 * `error_code` reach logs and callers, so they are bounded and cleaned here, once (`untrustedText`).
 */
export const gatewayResponseSchema = z
  .object({
    schema: z.literal("openab.gateway.response.v1"),
    request_id: z.string(),
    success: optional(z.boolean()),
    message_id: optional(z.string()),
    thread_id: optional(z.string()),
    error: optional(z.string()),
    outcome: optional(z.string()),
    error_code: optional(z.string()),
    retry_after_ms: optional(z.number().int().nonnegative()),
  })
  .transform((frame): GatewayResponse => {
    const response: { -readonly [K in keyof GatewayResponse]: GatewayResponse[K] } = {
      schema: frame.schema,
      request_id: frame.request_id,
      success: frame.success ?? false,
    };
    for (const key of ["message_id", "thread_id", "outcome"] as const) {
      const value = frame[key];
      if (value !== undefined) response[key] = value;
    }
    if (frame.error !== undefined) response.error = untrustedText(frame.error);
    if (frame.error_code !== undefined) response.error_code = untrustedText(frame.error_code, { maxChars: MAX_ERROR_CODE_CHARS });
    if (frame.retry_after_ms !== undefined) response.retry_after_ms = frame.retry_after_ms;
    return response;
  });

/** What one write became, per protocol §5.5. */
export type ResponseOutcome =
  | { readonly kind: "delivered"; readonly messageId?: string; readonly threadId?: string }
  | { readonly kind: "rejected"; readonly code: string; readonly message: string; readonly retryAfterMs?: number }
  | { readonly kind: "unknown"; readonly code: string; readonly message: string };

/**
 * Maps a response frame to its outcome (§5.5). `messageId` is left out when the gateway sent none
 * or `""`, so "delivered without a message id" is one case. An `outcome` value this table does not
 * know is read as `unknown`: the write's fate is ambiguous, and unknown outcomes are never retried.
 */
export function responseOutcome(response: GatewayResponse): ResponseOutcome {
  const code = response.error_code;
  const message = response.error;
  switch (response.outcome) {
    case undefined:
      return response.success
        ? delivered(response.message_id, response.thread_id)
        : { kind: "rejected", code: "legacy_failure", message: message ?? "gateway reported failure" };
    case "delivered":
      return delivered(response.message_id, response.thread_id);
    case "rejected":
      return {
        kind: "rejected",
        code: code ?? "rejected",
        message: message ?? "gateway rejected write",
        ...(response.retry_after_ms !== undefined ? { retryAfterMs: response.retry_after_ms } : {}),
      };
    default:
      return { kind: "unknown", code: code ?? "unknown", message: message ?? "gateway write outcome is unknown" };
  }
}

/** A delivered write, with the message id and the thread id (a `create_topic`'s new thread) the gateway gave, each left out when absent or `""`. */
function delivered(messageId: string | undefined, threadId: string | undefined): ResponseOutcome {
  return {
    kind: "delivered",
    ...(messageId !== undefined && messageId !== "" ? { messageId } : {}),
    ...(threadId !== undefined && threadId !== "" ? { threadId } : {}),
  };
}
