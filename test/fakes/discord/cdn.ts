import { createHmac, randomBytes } from "node:crypto";
import type { APIAttachment } from "@discordjs/core";

/** A file as the CDN serves it. */
export interface CdnFile {
  readonly bytes: Buffer;
  readonly contentType: string;
}

export interface AttachmentOptions {
  readonly contentType: string;
  readonly width?: number;
  readonly height?: number;
  readonly durationSecs?: number;
  readonly description?: string;
}

const DAY_SECONDS = 86_400;

/**
 * Attachments and the CDN that serves them, on the fake's own port: `/attachments/{channel}/{id}/{name}`,
 * signed with `ex` (expiry), `is` (issued) and `hm` (signature) as Discord's CDN links are since 2023. A link
 * whose signature is missing, wrong or expired is 404 "This content is no longer available.", so an adapter
 * must download the URL exactly as the message gave it.
 */
export class Cdn {
  private readonly files = new Map<string, CdnFile>();
  private readonly secret = randomBytes(16);

  constructor(
    private readonly origin: () => string,
    private readonly now: () => number,
  ) {}

  attach(channelId: string, id: string, filename: string, bytes: Uint8Array, options: AttachmentOptions): APIAttachment {
    const path = `/attachments/${channelId}/${id}/${encodeURIComponent(filename)}`;
    this.files.set(path, { bytes: Buffer.from(bytes), contentType: options.contentType });
    const issued = Math.floor(this.now() / 1000);
    const query = this.signature(path, issued + DAY_SECONDS, issued);
    return {
      id,
      filename,
      size: bytes.byteLength,
      url: `${this.origin()}${path}?${query}&`,
      proxy_url: `${this.origin()}/media${path}?${query}&`,
      content_type: options.contentType,
      ...(options.width !== undefined ? { width: options.width, height: options.height ?? options.width } : {}),
      ...(options.durationSecs !== undefined ? { duration_secs: options.durationSecs } : {}),
      ...(options.description !== undefined ? { description: options.description } : {}),
    } as APIAttachment;
  }

  /** The file an attachment of a message in `channelId` holds, whatever its link's signature says (for tests). */
  stored(channelId: string, attachment: Pick<APIAttachment, "id" | "filename">): CdnFile | undefined {
    return this.files.get(`/attachments/${channelId}/${attachment.id}/${encodeURIComponent(attachment.filename)}`);
  }

  /** A download: the file, or undefined (404) when the path or its signature is not good now. */
  download(path: string, query: URLSearchParams): CdnFile | undefined {
    const filePath = path.startsWith("/media/") ? path.slice("/media".length) : path;
    const file = this.files.get(filePath);
    const ex = Number.parseInt(query.get("ex") ?? "", 16);
    const is = Number.parseInt(query.get("is") ?? "", 16);
    if (!file || !Number.isFinite(ex) || !Number.isFinite(is)) return undefined;
    if (this.signature(filePath, ex, is) !== `ex=${query.get("ex")}&is=${query.get("is")}&hm=${query.get("hm")}`) return undefined;
    return ex * 1000 >= this.now() ? file : undefined;
  }

  private signature(path: string, expires: number, issued: number): string {
    const ex = expires.toString(16);
    const is = issued.toString(16);
    const hm = createHmac("sha256", this.secret).update(`${path}|${ex}|${is}`).digest("hex");
    return `ex=${ex}&is=${is}&hm=${hm}`;
  }
}
