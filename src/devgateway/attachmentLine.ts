import { formatAttachmentSize } from "../../operators/ingress/prompt/attachmentBlock.js";

/** How the terminal and the chat page show a file a reply carried: `📎 report.pdf (2.1 MB)`. */
export function attachmentLine(attachment: { readonly filename: string; readonly size: number }): string {
  return `📎 ${attachment.filename} (${formatAttachmentSize(attachment.size)})`;
}
