import { badRequest } from "./botApiError.js";
import { captionText } from "./formattedText.js";
import { replyMarkup, replyParameters, type ReplyMarkup, type ReplyTarget } from "./markupSchemas.js";
import { positiveOrNone } from "./methodSchemas.js";
import { UploadedFile } from "./multipartBody.js";
import { optionalBoolean, optionalInteger, requiredChatId, type ChatRef } from "./paramReaders.js";
import type { Params } from "./requestParams.js";
import type { FormattedText } from "./textBytes.js";

/** `sendPhoto`'s and `sendDocument`'s parameters: the file uploaded, its caption, and where it goes as for `sendMessage`. */
export interface SendFileArgs {
  readonly chat: ChatRef;
  readonly file: UploadedFile;
  readonly caption: FormattedText;
  readonly threadId: number | undefined;
  readonly reply: ReplyTarget | undefined;
  readonly markup: ReplyMarkup | undefined;
}

/** `sendPhoto`: `photo`, then `caption` with `parse_mode` or `caption_entities`, `show_caption_above_media`, `has_spoiler`. */
export function sendPhotoArgs(params: Params): SendFileArgs {
  return sendFileArgs(params, "photo", ["show_caption_above_media", "has_spoiler"]);
}

/** `sendDocument`: `document`, then `caption` as for a photo, `disable_content_type_detection`. */
export function sendDocumentArgs(params: Params): SendFileArgs {
  return sendFileArgs(params, "document", ["disable_content_type_detection"]);
}

/** In the Bot API server's order: the file, the caption, the reply markup and parameters, then the chat. */
function sendFileArgs(params: Params, field: "photo" | "document", flags: readonly string[]): SendFileArgs {
  const file = inputFile(params, field);
  const caption = captionText(params);
  for (const flag of [...flags, "disable_notification", "protect_content"]) optionalBoolean(params, flag);
  const markup = replyMarkup(params);
  const reply = replyParameters(params);
  return { chat: requiredChatId(params), file, caption, threadId: positiveOrNone(optionalInteger(params, "message_thread_id")), reply, markup };
}

/**
 * The file a call sends in `field`, as the Bot API server finds it: `attach://<name>` names the
 * multipart file part `<name>`; no value at all takes the file part named `field` itself. Any other
 * text would be a file id or an HTTP URL, which the fake does not serve. Missing: "there is no photo
 * in the request".
 */
function inputFile(params: Params, field: string): UploadedFile {
  const value = params[field];
  if (value instanceof UploadedFile) return value;
  if (typeof value === "string" && value !== "") {
    if (!value.startsWith("attach://")) throw badRequest("wrong file identifier/HTTP URL specified");
    const attached = params[value.slice("attach://".length)];
    if (attached instanceof UploadedFile) return attached;
  }
  throw badRequest(`There is no ${field} in the request`);
}
