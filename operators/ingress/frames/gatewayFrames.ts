import type * as z from "zod";
import { gatewayEventSchema } from "./eventFrame.js";
import type { GatewayEvent } from "../gatewayEvent.js";
import { type GatewayHello, gatewayHelloSchema } from "./helloFrame.js";
import { type GatewayResponse, gatewayResponseSchema } from "./responseFrame.js";
import { untrustedText } from "../untrustedText.js";

export const HELLO_SCHEMA = "openab.gateway.hello.v1";
export const RESPONSE_SCHEMA = "openab.gateway.response.v1";

/** Why a frame was dropped. `detail` is safe to log: it never carries the frame's content. */
export type FrameRejection =
  | "too_large"
  | "not_json"
  | "not_object"
  | "invalid_event"
  /** Claimed `hello.v1` but did not parse: the connection stays in legacy mode (§6.3). */
  | "invalid_hello"
  /** Claimed `response.v1` but did not parse: nobody's ack. */
  | "invalid_response";

/** One text frame from the gateway, classified (protocol §2.4). */
export type GatewayFrame =
  | { readonly kind: "hello"; readonly hello: GatewayHello }
  | { readonly kind: "response"; readonly response: GatewayResponse }
  | { readonly kind: "event"; readonly event: GatewayEvent }
  | { readonly kind: "rejected"; readonly reason: FrameRejection; readonly detail?: string };

const MAX_ISSUES = 3;
const MAX_DETAIL_CHARS = 300;

/**
 * Classifies a gateway text frame in §2.4's order: a `hello.v1` by its schema string, then a
 * `response.v1` by its schema string, otherwise an `event.v1` (whose schema is not checked).
 * Never throws. A frame over `maxFrameBytes` (UTF-8 bytes) is rejected before it is decoded.
 */
export function parseGatewayFrame(raw: string | Buffer, maxFrameBytes: number): GatewayFrame {
  const bytes = typeof raw === "string" ? Buffer.byteLength(raw, "utf8") : raw.byteLength;
  if (bytes > maxFrameBytes) return { kind: "rejected", reason: "too_large", detail: `${bytes} bytes > ${maxFrameBytes}` };

  let json: unknown;
  try {
    json = JSON.parse(typeof raw === "string" ? raw : raw.toString("utf8"));
  } catch {
    // No detail: the parser's message quotes the frame.
    return { kind: "rejected", reason: "not_json" };
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return { kind: "rejected", reason: "not_object", detail: json === null ? "null" : Array.isArray(json) ? "array" : typeof json };
  }

  const schema = (json as { schema?: unknown }).schema;
  if (schema === HELLO_SCHEMA) {
    const hello = gatewayHelloSchema.safeParse(json);
    return hello.success ? { kind: "hello", hello: hello.data } : rejected("invalid_hello", hello.error);
  }
  if (schema === RESPONSE_SCHEMA) {
    const response = gatewayResponseSchema.safeParse(json);
    return response.success ? { kind: "response", response: response.data } : rejected("invalid_response", response.error);
  }
  const event = gatewayEventSchema.safeParse(json);
  if (!event.success) return rejected("invalid_event", event.error);
  // Ids stay exactly as the gateway wrote them (a reply must name the same chat and message); the
  // logger bounds and cleans them where they are logged (src/log/logFields.ts).
  return { kind: "event", event: event.data };
}

function rejected(reason: FrameRejection, error: z.ZodError): GatewayFrame {
  return { kind: "rejected", reason, detail: issueDetail(error) };
}

/** `content.attachments[0].size: Invalid input: expected number, received string; …` — paths and zod's messages only. */
function issueDetail(error: z.ZodError): string {
  const issues = error.issues.slice(0, MAX_ISSUES).map((issue) => `${pathOf(issue.path)}: ${issue.message}`);
  const more = error.issues.length > MAX_ISSUES ? `; +${error.issues.length - MAX_ISSUES} more` : "";
  // A record's keys (a hello's platform names) are the gateway's own text: cleaned like any other.
  return untrustedText(issues.join("; ") + more, { maxChars: MAX_DETAIL_CHARS });
}

function pathOf(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(root)";
  return path
    .map((segment, index) => (typeof segment === "number" ? `[${segment}]` : `${index === 0 ? "" : "."}${String(segment)}`))
    .join("");
}
