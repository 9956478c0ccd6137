import { checkBlocks } from "./blocks.js";
import type { SlackFile } from "./fileStore.js";
import { integerArg, jsonArg, stringArg, TS } from "./paramReaders.js";
import type { Params } from "./requestParams.js";
import { botConversation, botMessage, type SlackContext, type WebMethod } from "./slackContext.js";
import { invalidArguments, SlackApiError } from "./slackApiError.js";
import { UPLOAD_PATH, type UploadTicket } from "./uploadTickets.js";
import type { Conversation } from "./workspace.js";

/** What Slack lets anyone upload: "1 GB" per file (Slack help: file upload limits). */
export const UPLOAD_LIMIT_BYTES = 1024 * 1024 * 1024;
/** `alt_txt`'s limit (files.getUploadURLExternal: `alt_txt_too_large`). */
const ALT_TEXT_LIMIT = 1000;

/** Media types Slack gives an uploaded file by its name's extension (the common ones; else binary). */
const MEDIA_TYPES: Readonly<Record<string, string>> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
  txt: "text/plain",
  csv: "text/csv",
  json: "application/json",
  md: "text/markdown",
  zip: "application/zip",
};

/**
 * Uploading a file as Slack's current flow has it (the flow WebClient's `filesUploadV2` follows):
 * `files.getUploadURLExternal` opens an upload (`filename` and `length` required, `length` a whole
 * number of bytes; 0 is `missing_argument`, as its page says, and over the workspace's limit
 * `file_upload_size_restricted`), the bytes go to its `upload_url` (`UploadTickets`), then
 * `files.completeUploadExternal` shares the files (`files`: a JSON array of `{id, title?}`) into
 * `channel_id` (or `channels`), in `thread_ts`'s thread, with `initial_comment` as the message's
 * text (`blocks` only without one): one `file_share` message by the bot per conversation, its
 * `files` the file objects, sent as an event as Slack sends the bot's own messages. Its answer is
 * the documented `{files: [{id, title}]}`; with `completeUploadShares` the whole file objects with
 * their `shares`, as Slack answers when its asynchronous share finished first.
 */
export function fileMethods(context: SlackContext): WebMethod[] {
  const write = { token: "bot", json: true, scope: () => "files:write" } as const;
  return [
    {
      name: "files.getUploadURLExternal",
      ...write,
      handle: (params) => {
        const filename = stringArg(params, "filename");
        if (filename === undefined) throw invalidArguments("missing required field: filename [json-pointer:/filename]");
        const length = integerArg(params, "length");
        if (length === undefined) throw invalidArguments("missing required field: length [json-pointer:/length]");
        if (length === 0) throw new SlackApiError("missing_argument");
        if (length < 0) throw invalidArguments("must be at least 1 [json-pointer:/length]");
        const alt = stringArg(params, "alt_txt");
        if (alt !== undefined && [...alt].length > ALT_TEXT_LIMIT) throw new SlackApiError("alt_txt_too_large");
        stringArg(params, "snippet_type");
        if (length > context.uploadLimitBytes) throw new SlackApiError("file_upload_size_restricted");
        const ticket = context.uploads.open(context.files.newId(), filename, length);
        return { upload_url: `${context.files.baseUrl}${UPLOAD_PATH}${ticket.ticket}`, file_id: ticket.fileId };
      },
    },
    {
      name: "files.completeUploadExternal",
      ...write,
      handle: (params) => {
        const files = completedFiles(context, params);
        const targets = shareTargets(context, params);
        const threadTs = stringArg(params, "thread_ts");
        if (threadTs !== undefined && !TS.test(threadTs)) throw invalidArguments("must be a message ts [json-pointer:/thread_ts]");
        if (threadTs !== undefined && targets.length !== 1) throw invalidArguments("thread_ts needs exactly one channel [json-pointer:/thread_ts]");
        const comment = stringArg(params, "initial_comment");
        // "If the initial_comment field is provided, the blocks field is ignored."
        const blocks = comment === undefined ? jsonArg(params, "blocks") : { given: false, value: undefined };
        const checkedBlocks = blocks.given ? checkBlocks(blocks.value, blocks.value !== undefined) : undefined;
        const created = Math.floor(context.now() / 1000);
        const isPublic = targets.some((conversation) => conversation.kind === "public");
        const stored = files.map(({ ticket, title }) => {
          ticket.completed = true;
          return context.files.add(ticket.bytes!, { id: ticket.fileId, name: ticket.filename, title: title ?? ticket.filename, mimetype: mediaTypeOf(ticket.filename), user: context.bot.user.id, isPublic, created });
        });
        const shares = targets.map((conversation) => share(context, conversation, stored, { comment, threadTs, blocks: checkedBlocks }));
        return { files: stored.map((file) => (context.completeUploadShares ? { ...structuredClone(file), shares: sharesOf(context, shares) } : { id: file.id, title: file.title })) };
      },
    },
  ];
}

/** The uploads `files` names: each opened, its bytes arrived, not shared yet — else `file_not_found` ("Could not find the file from the upload ticket"). */
function completedFiles(context: SlackContext, params: Params): { ticket: UploadTicket; title: string | undefined }[] {
  const { given, value } = jsonArg(params, "files");
  if (!given) throw invalidArguments("missing required field: files [json-pointer:/files]");
  if (!Array.isArray(value)) throw invalidArguments("must be an array [json-pointer:/files]");
  if (value.length === 0) throw invalidArguments("must contain at least 1 item [json-pointer:/files]");
  return value.map((entry: unknown, index) => {
    const { id, title } = (typeof entry === "object" && entry !== null ? entry : {}) as { id?: unknown; title?: unknown };
    if (typeof id !== "string" || id === "") throw invalidArguments(`missing required field: id [json-pointer:/files/${index}/id]`);
    if (title !== undefined && typeof title !== "string") throw invalidArguments(`must be a string [json-pointer:/files/${index}/title]`);
    const ticket = context.uploads.byFile.get(id);
    // Never opened, its bytes never came, or already completed ("This method can only be called once"): the fake answers all three alike.
    if (ticket === undefined || ticket.bytes === undefined || ticket.completed) throw new SlackApiError("file_not_found");
    return { ticket, title: title === "" ? undefined : title };
  });
}

/** Where the files go: `channel_id`, else each of `channels` (comma-separated), else nowhere (the file stays private). */
function shareTargets(context: SlackContext, params: Params): Conversation[] {
  const channel = stringArg(params, "channel_id");
  if (channel !== undefined) return [botConversation(context, channel, "write")];
  const channels = stringArg(params, "channels");
  if (channels === undefined) return [];
  const ids = channels.split(",").map((id) => id.trim());
  if (ids.length > 100) throw new SlackApiError("channels_limit_exceeded");
  return ids.map((id) => botConversation(context, id, "write"));
}

interface Share {
  readonly conversation: Conversation;
  readonly ts: string;
  readonly threadTs: string | undefined;
}

/** The bot's `file_share` message in one conversation: the comment as its text, the files in `files`. */
function share(context: SlackContext, conversation: Conversation, files: readonly SlackFile[], options: { comment: string | undefined; threadTs: string | undefined; blocks: unknown[] | undefined }): Share {
  const ts = context.store.nextTs();
  const message = botMessage(context, {
    subtype: "file_share",
    text: options.comment ?? "",
    ts,
    files: files.map((file) => structuredClone(file)),
    upload: true,
    ...(options.threadTs === undefined ? {} : { thread_ts: options.threadTs }),
    ...(options.blocks === undefined ? {} : { blocks: options.blocks }),
  });
  const stored = context.store.add(conversation.id, message);
  if (context.echoBotMessages && !stored.lost) context.events.message(conversation, message);
  return { conversation, ts, threadTs: message.thread_ts };
}

/** A file object's `shares`: by visibility, then conversation, the messages that show it. */
function sharesOf(context: SlackContext, shares: readonly Share[]): Record<string, Record<string, unknown[]>> {
  const result: Record<string, Record<string, unknown[]>> = {};
  for (const { conversation, ts, threadTs } of shares) {
    const kind = conversation.kind === "public" ? "public" : "private";
    const entry = { ts, channel_name: conversation.name ?? conversation.id, team_id: context.workspace.team.id, share_user_id: context.bot.user.id, source: "UNKNOWN", is_silent_share: false, ...(threadTs === undefined ? {} : { thread_ts: threadTs }) };
    ((result[kind] ??= {})[conversation.id] ??= []).push(entry);
  }
  return result;
}

function mediaTypeOf(filename: string): string {
  const dot = filename.lastIndexOf(".");
  return MEDIA_TYPES[dot < 0 ? "" : filename.slice(dot + 1).toLowerCase()] ?? "application/octet-stream";
}
