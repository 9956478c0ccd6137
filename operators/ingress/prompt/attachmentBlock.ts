import { NO_PROMPT_CAPABILITIES, type ContentBlock, type PromptCapabilities } from "../../dispatch/contentBlock.js";
import type { GatewayAttachment } from "../gatewayEvent.js";

/** The "not delivered" note's reason for a `path`-only attachment: pure code reads no files. */
export const PATH_NOT_READ_STATUS = "unsupported: turnstream does not read colocated file paths";

/** The "not delivered" note's reason for a document when the agent did not advertise `embeddedContext`. */
export const NO_EMBEDDED_CONTEXT_STATUS = "unsupported: the agent does not accept embedded files";

const MAX_NAME_CHARS = 200;
const KIB = 1024;
const MIB = 1024 * 1024;

/**
 * The prompt block for one attachment (protocol §3.4), or `undefined` when it is skipped (no
 * bytes, or a type turnstream does not handle).
 *
 * A `file` (a document a native adapter fetched: PDF, archive, anything not text, image or audio)
 * is an ACP `resource` block, `{uri: "attachment:///<name>", mimeType, blob}`, when the agent
 * advertised `promptCapabilities.embeddedContext` (`accepts`); without it, the "not delivered"
 * note saying the agent does not take embedded files. The uri names the file; it is no path.
 *
 * An audio attachment `[stt]` transcribed is upstream's `[Voice message transcript]: <text>` block;
 * without `[stt]` it becomes a note saying so. turnstream's departures: it reads
 * no files, so an attachment with only a `path` becomes a "not delivered" note (with `data` too,
 * the data is used); it has no file store, so a text file over upstream's 64 KiB inline limit is
 * inlined like a small one (upstream does the same without a store). Names are cleaned (control
 * characters removed, at most 200 chars) in every block, so a file name cannot forge prompt lines.
 */
export function attachmentBlock(attachment: GatewayAttachment, accepts: PromptCapabilities = NO_PROMPT_CAPABILITIES): ContentBlock | undefined {
  const name = cleanName(attachment.filename);
  if (attachment.status != null) return notDelivered(attachment, name, attachment.status);
  if (attachment.data === "") {
    return attachment.path != null && attachment.path !== ""
      ? notDelivered(attachment, name, PATH_NOT_READ_STATUS)
      : undefined;
  }
  switch (attachment.type) {
    case "image":
      return { type: "image", mimeType: attachment.mime_type, data: attachment.data };
    case "text_file": {
      const text = Buffer.from(attachment.data, "base64").toString("utf8");
      return { type: "text", text: `[File: ${name}]\n\`\`\`\n${text}\n\`\`\`` };
    }
    case "audio":
      // Transcribed by `[stt]` before the turn: upstream's transcript block.
      if (attachment.transcript !== undefined) return { type: "text", text: `[Voice message transcript]: ${attachment.transcript}` };
      return { type: "text", text: `[System: audio attachment "${name}" skipped: speech-to-text is not configured]` };
    case "file":
      if (!accepts.embeddedContext) return notDelivered(attachment, name, NO_EMBEDDED_CONTEXT_STATUS);
      return { type: "resource", resource: { uri: attachmentUri(name), mimeType: attachment.mime_type === "" ? "application/octet-stream" : attachment.mime_type, blob: attachment.data } };
    default:
      return undefined;
  }
}

/** `N B` below 1 KiB, `N.N KB` below 1 MiB, else `N.N MB` (base 1024, one decimal, ties to even). */
export function formatAttachmentSize(size: number): string {
  if (size < KIB) return `${size} B`;
  return size < MIB ? `${tenths(size, KIB)} KB` : `${tenths(size, MIB)} MB`;
}

function notDelivered(attachment: GatewayAttachment, name: string, status: string): ContentBlock {
  const size = formatAttachmentSize(attachment.size);
  return {
    type: "text",
    text: `[System: attachment "${name}" (${cleanName(attachment.mime_type)}, ${size}) was not delivered — ${status}]`,
  };
}

/**
 * `size / unit` with one decimal, in integers so no float error can tip a digit. Exact ties round
 * to even, as Rust's `{:.1}` does upstream (1280 B → `1.2 KB`).
 */
function tenths(size: number, unit: number): string {
  const scaled = size * 10;
  let quotient = Math.floor(scaled / unit);
  const twiceRemainder = 2 * (scaled - quotient * unit);
  if (twiceRemainder > unit || (twiceRemainder === unit && quotient % 2 === 1)) quotient += 1;
  return `${Math.floor(quotient / 10)}.${quotient % 10}`;
}

/** `attachment:///<name>`, the name percent-encoded: one path segment, so no `/`, `..`, `?` or `#` of a name means anything. */
function attachmentUri(name: string): string {
  return `attachment:///${encodeURIComponent(name === "" ? "file" : name)}`;
}

/** Control characters removed, at most 200 code points: a name (or a MIME type) cannot forge prompt lines. */
function cleanName(filename: string): string {
  return [...filename.replace(/\p{Cc}/gu, "")].slice(0, MAX_NAME_CHARS).join("");
}
