import type { APIAttachment } from "@discordjs/core";
import type { GatewayAttachment } from "../../../operators/ingress/gatewayEvent.js";
import { formatAttachmentSize } from "../../../operators/ingress/prompt/attachmentBlock.js";
import { sizeExceeded } from "../boundedDownload.js";
import { MAX_AUDIO_BYTES } from "../../stt/speechToText.js";

/** Upstream's limits for one message's attachments (§2.7). */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
export const MAX_TEXT_FILE_BYTES = 512 * 1024;
export const MAX_TEXT_FILES = 5;
export const MAX_TEXT_TOTAL_BYTES = 1024 * 1024;

/** An attachment to download from its CDN URL, as the attachment it becomes. */
export interface PlannedDownload {
  readonly kind: "download";
  readonly url: string;
  readonly type: "audio" | "image" | "text_file";
  readonly filename: string;
  readonly mime_type: string;
  readonly size: number;
  readonly maxBytes: number;
}

export type AttachmentItem = PlannedDownload | { readonly kind: "rejected"; readonly attachment: GatewayAttachment };

const TEXT_MIMES = new Set(["application/json", "application/xml", "application/javascript", "application/x-yaml", "application/x-sh", "application/toml", "application/x-toml"]);
const TEXT_EXTENSIONS = new Set("txt csv log md json jsonl yaml yml toml xml rs py js ts jsx tsx go java c cpp h hpp rb sh bash zsh fish ps1 bat sql html css scss less ini cfg conf env".split(" "));
const TEXT_NAMES = new Set(["dockerfile", "makefile", "justfile", "rakefile", "gemfile", "procfile", "vagrantfile", ".gitignore", ".dockerignore", ".editorconfig"]);
const IMAGE_EXTENSIONS = new Set(["png", "jpg", "jpeg", "gif", "webp"]);

/**
 * A message's attachments as OpenAB's Discord adapter takes them (§2.7), in message order: audio
 * (`audio/*`) for `[stt]` (≤ 25 MiB), text files by MIME type, extension or name (at most 5, 512 KiB
 * each, 1 MiB together), images by `image/*` or extension (≤ 10 MiB); anything else is refused as
 * an unsupported format, so the agent is told a file was not delivered rather than nothing.
 */
export function planAttachments(attachments: readonly APIAttachment[]): AttachmentItem[] {
  let textFiles = 0;
  let textBytes = 0;
  return attachments.map((attachment): AttachmentItem => {
    const mime = stripMimeParams(attachment.content_type ?? "");
    const name = attachment.filename;
    if (mime.startsWith("audio/")) return planned(attachment, "audio", mime, MAX_AUDIO_BYTES);
    if (isTextFile(mime, name)) {
      if (textFiles >= MAX_TEXT_FILES) return rejected(attachment, "text_file", mime, `too many files: at most ${MAX_TEXT_FILES} text files a message`);
      if (textBytes + attachment.size > MAX_TEXT_TOTAL_BYTES) return rejected(attachment, "text_file", mime, `size exceeded: text files over ${formatAttachmentSize(MAX_TEXT_TOTAL_BYTES)} together`);
      textFiles += 1;
      textBytes += attachment.size;
      return planned(attachment, "text_file", mime === "" ? "text/plain" : mime, MAX_TEXT_FILE_BYTES);
    }
    if (mime.startsWith("image/") || IMAGE_EXTENSIONS.has(extensionOf(name))) return planned(attachment, "image", mime === "" ? "image/png" : mime, MAX_IMAGE_BYTES);
    return rejected(attachment, "file", mime, `unsupported format: ${extensionOf(name) || name}`);
  });
}

/** `text/plain; charset=utf-8` → `text/plain`. */
export function stripMimeParams(mime: string): string {
  const semicolon = mime.indexOf(";");
  return (semicolon === -1 ? mime : mime.slice(0, semicolon)).trim().toLowerCase();
}

export function isTextFile(mime: string, filename: string): boolean {
  if (mime.startsWith("text/") || TEXT_MIMES.has(mime)) return true;
  const lower = filename.toLowerCase();
  return TEXT_EXTENSIONS.has(extensionOf(lower)) || TEXT_NAMES.has(lower);
}

function extensionOf(filename: string): string {
  const dot = filename.lastIndexOf(".");
  return dot <= 0 ? "" : filename.slice(dot + 1).toLowerCase();
}

function planned(attachment: APIAttachment, type: PlannedDownload["type"], mime: string, maxBytes: number): AttachmentItem {
  if (attachment.size > maxBytes) return rejected(attachment, type, mime, sizeExceeded(attachment.size, maxBytes));
  return { kind: "download", url: attachment.url, type, filename: attachment.filename, mime_type: mime, size: attachment.size, maxBytes };
}

function rejected(attachment: APIAttachment, type: string, mime: string, status: string): AttachmentItem {
  return { kind: "rejected", attachment: { type, filename: attachment.filename, mime_type: mime, data: "", size: attachment.size, status } };
}

