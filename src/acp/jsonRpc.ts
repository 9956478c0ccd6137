import { z } from "zod";
import { untrustedJson } from "../../operators/ingress/untrustedJson.js";
import { untrustedText } from "../../operators/ingress/untrustedText.js";

/** JSON-RPC 2.0 error codes turnstream uses (ACP §11). */
export const rpcErrorCodes = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  authRequired: -32000,
  resourceNotFound: -32002,
} as const;

const idSchema = z.union([z.number(), z.string()]);

const errorSchema = z.looseObject({ code: z.number(), message: z.string(), data: z.unknown().optional() });

/** One line from the agent, as far as JSON-RPC 2.0 goes; params and results are checked by their users. */
const frameSchema = z.looseObject({
  jsonrpc: z.literal("2.0"),
  id: idSchema.nullable().optional(),
  method: z.string().optional(),
  params: z.unknown().optional(),
  result: z.unknown().optional(),
  error: errorSchema.optional(),
});

export type RpcId = z.infer<typeof idSchema>;
export type RpcErrorObject = z.infer<typeof errorSchema>;

export type IncomingFrame =
  | { readonly kind: "request"; readonly id: RpcId; readonly method: string; readonly params: unknown }
  | { readonly kind: "notification"; readonly method: string; readonly params: unknown }
  | { readonly kind: "result"; readonly id: RpcId; readonly result: unknown }
  | { readonly kind: "error"; readonly id: RpcId | null; readonly error: RpcErrorObject };

export type FrameProblem = "not_json" | "not_jsonrpc";

/** Classifies one stdout line, or says why it is not a JSON-RPC 2.0 message. Pure. */
export function parseFrame(line: string): IncomingFrame | FrameProblem {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return "not_json";
  }
  const parsed = frameSchema.safeParse(json);
  if (!parsed.success) return "not_jsonrpc";
  const { id, method, params, result, error } = parsed.data;
  if (method !== undefined) {
    return id === undefined || id === null ? { kind: "notification", method, params } : { kind: "request", id, method, params };
  }
  if (error !== undefined) return { kind: "error", id: id ?? null, error: untrustedError(error) };
  if (id !== undefined && id !== null && "result" in parsed.data) return { kind: "result", id, result };
  return "not_jsonrpc";
}

/**
 * The agent's error as far as anyone reads it: the message (shown to users as `⚠️ …`, so it keeps
 * its line breaks) bounded to 500 chars and cleaned, `data` cut to a small clean copy.
 */
function untrustedError(error: RpcErrorObject): RpcErrorObject {
  const message = untrustedText(error.message, { multiline: true });
  // Other fields stay (nothing reads or logs them); `AcpRequestError` carries only code, message and data.
  return error.data === undefined ? { ...error, message } : { ...error, message, data: untrustedJson(error.data) };
}

/** Thrown by a request handler to answer with a JSON-RPC error. */
export class RpcError extends Error {
  override readonly name = "RpcError";
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}
