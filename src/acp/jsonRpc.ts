import { redactedText } from "../../operators/delivery/text/redactedText.js";
import { redactSecrets, type Redact } from "../../operators/delivery/text/redactSecrets.js";
import { untrustedJson } from "../../operators/ingress/frames/untrustedJson.js";
import { isJsonObject } from "../../operators/ingress/frames/jsonObject.js";

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

export type RpcId = number | string;

export interface RpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
  /** Other fields the agent sent: kept, never read. */
  readonly [field: string]: unknown;
}

export type IncomingFrame =
  | { readonly kind: "request"; readonly id: RpcId; readonly method: string; readonly params: unknown }
  | { readonly kind: "notification"; readonly method: string; readonly params: unknown }
  | { readonly kind: "result"; readonly id: RpcId; readonly result: unknown }
  | { readonly kind: "error"; readonly id: RpcId | null; readonly error: RpcErrorObject };

export type FrameProblem = "not_json" | "not_jsonrpc";

/**
 * Classifies one stdout line, or says why it is not a JSON-RPC 2.0 message. Pure. An error's
 * message goes to users, so `redact` masks its secrets (the broker's own and the known shapes).
 */
export function parseFrame(line: string, redact: Redact = redactSecrets): IncomingFrame | FrameProblem {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return "not_json";
  }
  // Checked by hand rather than with a zod object: this runs for every line the agent writes, and
  // an object schema copies the frame (~0.6 KB a line) where only these five fields are read.
  if (!isJsonObject(json) || json.jsonrpc !== "2.0") return "not_jsonrpc";
  const { id, method, params, result, error } = json;
  if (!(id === undefined || id === null || isNumber(id) || typeof id === "string")) return "not_jsonrpc";
  if (method !== undefined && typeof method !== "string") return "not_jsonrpc";
  if (error !== undefined && !isErrorObject(error)) return "not_jsonrpc";
  if (method !== undefined) {
    return id === undefined || id === null ? { kind: "notification", method, params } : { kind: "request", id, method, params };
  }
  if (error !== undefined) return { kind: "error", id: id ?? null, error: untrustedError(error, redact) };
  if (id !== undefined && id !== null && "result" in json) return { kind: "result", id, result };
  return "not_jsonrpc";
}

/** A finite number: `1e999` parses as Infinity, which no id or code is. */
function isNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/** A JSON-RPC error object: a numeric `code` and a string `message`. */
function isErrorObject(value: unknown): value is RpcErrorObject {
  return isJsonObject(value) && isNumber(value.code) && typeof value.message === "string";
}

/**
 * The agent's error as far as anyone reads it: the message (shown to users as `⚠️ …`, so it keeps
 * its line breaks) cleaned, its secrets redacted, bounded to 500 chars; `data` cut to a small
 * clean copy, its `message` (shown after the error's, as OpenAB does) redacted the same way first.
 */
function untrustedError(error: RpcErrorObject, redact: Redact): RpcErrorObject {
  const message = redactedText(error.message, redact, { multiline: true });
  if (error.data === undefined) return { ...error, message };
  const { data } = error;
  const shown = isJsonObject(data) && typeof data.message === "string" ? { ...data, message: redactedText(data.message, redact, { multiline: true }) } : data;
  // Other fields stay (nothing reads or logs them); `AcpRequestError` carries only code, message and data.
  return { ...error, message, data: untrustedJson(shown) };
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
