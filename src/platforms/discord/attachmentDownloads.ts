import type { GatewayAttachment } from "../../../operators/ingress/gatewayEvent.js";
import type { Logger } from "../../log/logger.js";
import { readAtMost, type DownloadFailure, type PlannedFile, type UrlDownload } from "../boundedDownload.js";


/**
 * A message's attachments fetched from their CDN URLs (signed, public for their lifetime: no token
 * is sent), each bounded in time and size. A failure becomes the attachment's `status`, which the
 * agent reads as a "not delivered" note; the turn still runs. Never rejects.
 */
export class AttachmentDownloads {
  readonly #timeoutMs: number;
  readonly #logger: Logger;

  constructor(options: { readonly timeoutMs: number; readonly logger: Logger }) {
    this.#timeoutMs = options.timeoutMs;
    this.#logger = options.logger;
  }

  all(items: readonly PlannedFile[]): Promise<GatewayAttachment[]> {
    return Promise.all(items.map((item) => (item.kind === "rejected" ? item.attachment : this.attachment(item))));
  }

  async attachment(file: UrlDownload): Promise<GatewayAttachment> {
    const base = { type: file.type, filename: file.filename, mime_type: file.mime_type, size: file.size };
    const fetched = await this.#fetch(file).catch((err: unknown) => failureOf(err));
    if (Buffer.isBuffer(fetched)) return { ...base, data: fetched.toString("base64"), size: fetched.length };
    this.#logger.warn({ reason: fetched.reason, type: file.type, size: file.size }, "discord attachment not downloaded");
    return { ...base, data: "", status: fetched.status };
  }

  async #fetch(file: UrlDownload): Promise<Buffer | DownloadFailure> {
    const signal = AbortSignal.timeout(this.#timeoutMs);
    const response = await fetch(file.url, { signal });
    if (!response.ok) {
      await response.body?.cancel();
      return { reason: "download_failed", status: `download failed: HTTP ${response.status}` };
    }
    return readAtMost(response, file.maxBytes);
  }
}

/** A failure's status, never the URL (its signature) nor a stack. */
function failureOf(err: unknown): DownloadFailure {
  const name = (err as { name?: unknown }).name;
  if (name === "TimeoutError" || name === "AbortError") return { reason: "timeout", status: "download failed: timed out" };
  const code = (err as { cause?: { code?: unknown } }).cause?.code;
  return { reason: "download_failed", status: `download failed: ${typeof code === "string" ? code : "network error"}` };
}
