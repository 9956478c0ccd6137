import type { GatewayAttachment } from "../../operators/ingress/gatewayEvent.js";
import { formatAttachmentSize } from "../../operators/ingress/prompt/attachmentBlock.js";

/**
 * Why a platform file did not reach the agent, and the attachment's `status` that says so (the
 * agent reads it as a "not delivered" note). Each adapter adds reasons of its own.
 */
export interface DownloadFailure<Reason extends string = never> {
  readonly reason: "download_failed" | "size_exceeded" | "timeout" | Reason;
  readonly status: string;
}

/** The attachment types a native adapter downloads: `file` is any document that is not one of the others. */
export type DownloadType = "audio" | "image" | "text_file" | "file";

/** A file to fetch from a URL (Discord's CDN, Slack's file host), as the attachment it becomes. */
export interface UrlDownload {
  readonly kind: "download";
  readonly url: string;
  readonly type: DownloadType;
  readonly filename: string;
  readonly mime_type: string;
  /** What the platform says it weighs (Slack sometimes says 0). */
  readonly size: number;
  /** A download past this many bytes is cut off and marked "size exceeded". */
  readonly maxBytes: number;
}

/** A file of a message: to fetch, or already refused with the attachment that tells the agent why. */
export type PlannedFile = UrlDownload | { readonly kind: "rejected"; readonly attachment: GatewayAttachment };

/** The "size exceeded" status of a file over `maxBytes`. */
export function sizeExceeded(size: number, maxBytes: number): string {
  return `size exceeded: ${formatAttachmentSize(size)} exceeds ${formatAttachmentSize(maxBytes)}`;
}

/**
 * A download's body, or "size exceeded" as soon as it is known to pass `maxBytes`: from the
 * declared length before anything is read, else as the bytes come (the rest is never read).
 */
export async function readAtMost(response: Response, maxBytes: number): Promise<Buffer | DownloadFailure> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel();
    return { reason: "size_exceeded", status: sizeExceeded(declared, maxBytes) };
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body ?? []) {
    total += chunk.length;
    if (total > maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      return { reason: "size_exceeded", status: sizeExceeded(total, maxBytes) };
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
