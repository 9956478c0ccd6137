import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { type JsonPointer, resolveJsonPointer } from "../../operators/ingress/webhook/jsonPointer.js";

/** Where an endpoint reads a delivery's id: a header, a JSON pointer into the body, or neither (the body's hash). */
export type DeliveryIdSource = { readonly kind: "header"; readonly name: string } | { readonly kind: "pointer"; readonly pointer: JsonPointer } | { readonly kind: "body" };

/** An id kept as the sender wrote it: short, visible ASCII (GitHub's GUIDs, numeric ids, ULIDs). */
const PLAIN_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * The sender's id for a delivery, so that a retry of it is recognised as the same event: the
 * header's value (trimmed), the pointer's string or number, or `sha256:<hex>` of the raw body. An
 * id that is long or holds anything but visible ASCII is replaced by `sha256:<hex>` of it: equal
 * ids still match, and nothing of the sender's choosing reaches a log line or a bus header. undefined
 * when the header or the pointer finds nothing usable (the caller answers 400).
 */
export function deliveryId(source: DeliveryIdSource, headers: IncomingHttpHeaders, body: unknown, raw: Buffer): string | undefined {
  switch (source.kind) {
    case "body":
      return `sha256:${sha256Hex(raw)}`;
    case "header": {
      const value = headers[source.name.toLowerCase()];
      return typeof value === "string" ? plainId(value.trim()) : undefined;
    }
    case "pointer": {
      const found = resolveJsonPointer(source.pointer, body);
      if (!found.found) return undefined;
      const { value } = found;
      if (typeof value === "string") return plainId(value.trim());
      return typeof value === "number" && Number.isFinite(value) ? plainId(String(value)) : undefined;
    }
  }
}

function plainId(id: string): string | undefined {
  if (id === "") return undefined;
  return PLAIN_ID.test(id) ? id : `sha256:${sha256Hex(Buffer.from(id, "utf8"))}`;
}

function sha256Hex(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}
