import { formatAttachmentSize } from "../../ingress/prompt/attachmentBlock.js";

/**
 * The one line a conversation gets for a file that could not reach it (too big for the platform,
 * or a gateway that takes no files): its name and size, never its bytes as text.
 * `📎 report.pdf (2.1 MB) could not be sent here`.
 */
export function fileNotice(filename: string, size: number): string {
  return `📎 ${filename} (${formatAttachmentSize(size)}) could not be sent here`;
}
