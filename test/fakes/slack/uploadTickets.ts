import { randomBytes } from "node:crypto";
import type { HttpAnswer } from "./httpServer.js";

/** The path the upload URLs are served at (Slack's are `https://files.slack.com/upload/v1/…`). */
export const UPLOAD_PATH = "/upload/v1/";

/** One upload `files.getUploadURLExternal` opened: what was announced, and what arrived. */
export interface UploadTicket {
  /** The opaque part of its upload URL. */
  readonly ticket: string;
  readonly fileId: string;
  readonly filename: string;
  /** The bytes announced (`length`). */
  readonly length: number;
  /** What the upload POST carried, once it came with exactly `length` bytes. */
  bytes: Buffer | undefined;
  /** How the bytes came: as the body itself, or as a multipart/form-data file part. */
  encoding: "raw" | "multipart" | undefined;
  /** Shared by `files.completeUploadExternal` (it can be called once). */
  completed: boolean;
}

const text = (status: number, body: string): HttpAnswer => ({ status, headers: { "content-type": "text/plain; charset=utf-8" }, body });

/**
 * The uploads in flight, and their URLs: one POST per URL, which needs no token (the URL is the
 * authority), carrying the file as the raw body or as a multipart/form-data file part — "Files can
 * be sent as raw bytes or can be multipart form encoded. Slack will return HTTP 200 if the upload
 * is successful; a non-200 response indicates a failure" (files.getUploadURLExternal). The fake
 * answers 200 `OK - <bytes>`, and refuses, with its own words: an unknown URL (404), a method other
 * than POST (405), a second upload (409), no file part in a form, or a byte count other than the
 * `length` announced (400).
 */
export class UploadTickets {
  readonly byTicket = new Map<string, UploadTicket>();
  readonly byFile = new Map<string, UploadTicket>();

  open(fileId: string, filename: string, length: number): UploadTicket {
    const ticket: UploadTicket = { ticket: randomBytes(12).toString("hex"), fileId, filename, length, bytes: undefined, encoding: undefined, completed: false };
    this.byTicket.set(ticket.ticket, ticket);
    this.byFile.set(fileId, ticket);
    return ticket;
  }

  /** Every upload opened, oldest first. */
  get all(): UploadTicket[] {
    return [...this.byTicket.values()];
  }

  async receive(path: string, method: string, contentType: string | undefined, body: Buffer): Promise<HttpAnswer> {
    const ticket = this.byTicket.get(path.slice(UPLOAD_PATH.length));
    if (ticket === undefined) return text(404, "Not Found");
    if (method !== "POST") return text(405, "Method Not Allowed");
    if (ticket.bytes !== undefined) return text(409, "this upload URL was used already");
    const multipart = (contentType ?? "").split(";")[0]!.trim().toLowerCase() === "multipart/form-data";
    const bytes = multipart ? await filePart(body, contentType!) : body;
    if (bytes === undefined) return text(400, "no file in the form");
    if (bytes.length !== ticket.length) return text(400, `expected ${ticket.length} bytes (length), got ${bytes.length}`);
    ticket.bytes = bytes;
    ticket.encoding = multipart ? "multipart" : "raw";
    return text(200, `OK - ${bytes.length}`);
  }
}

/** The one file part of a multipart body; undefined when it has none (or is no multipart body). */
async function filePart(body: Buffer, contentType: string): Promise<Buffer | undefined> {
  const form = await new Response(new Uint8Array(body), { headers: { "content-type": contentType } }).formData().catch(() => undefined);
  const files = form === undefined ? [] : [...form.values()].flatMap((value) => (typeof value === "string" ? [] : [value]));
  return files.length === 1 ? Buffer.from(await files[0]!.arrayBuffer()) : undefined;
}
