import type { WebClient } from "@slack/web-api";
import type { OutboundAttachment, OutboundChoice, OutboundMessage, SendReceipt } from "../../../operators/delivery/outboundMessage.js";
import { charCount } from "../../../operators/delivery/text/graphemes.js";
import { splitMessage } from "../../../operators/delivery/text/splitMessage.js";
import type { Logger } from "../../log/logger.js";
import { SendError } from "../../wire/index.js";
import { choiceMessage, type ChoiceMessage } from "./choiceBlocks.js";
import { markdownToMrkdwn } from "./markdownToMrkdwn.js";
import { plainBlocks, plainPost } from "./plainMessage.js";
import { slackReactionName } from "./reactionNames.js";
import { sendErrorOf } from "./sendErrorOf.js";
import { failureDetail, slackApiFailure } from "./slackApiFailure.js";
import { SLACK_MESSAGE_LIMIT } from "./slackCapabilities.js";
import { escapeSlackText } from "./slackText.js";
import { readTapId } from "./tapId.js";
import { uploadReceipt } from "./uploadReceipt.js";

/** The receipt of an operation that leaves no message of its own ("typing…", which Slack has none of). */
const DONE: SendReceipt = { messageId: "slack_done" };

/** A Slack message timestamp: seconds, a dot, microseconds. */
const TS = /^\d{1,12}\.\d{1,9}$/;

/** Reaction errors that mean the message already shows what was asked. */
const REACTION_ALREADY: ReadonlySet<string> = new Set(["already_reacted", "no_reaction"]);

/**
 * The broker's reply operations as Web API calls (§3.6), each answered as the gateway acks one (a
 * receipt with the message's `ts`, or a `SendError`): a message (`chat.postMessage` into its thread,
 * `thread_ts`), an edit (`chat.update`), a delete (`chat.delete`), a reaction (`reactions.add` /
 * `reactions.remove` by short name; `already_reacted` / `no_reaction` are success, as upstream).
 * Text is converted from Markdown to mrkdwn (a `plainText` message is not: below). Slack has no
 * quote-reply (the answer is in the thread anyway) and no topics: a `quote_message_id` is ignored;
 * `create_topic` for a message (`quote_message_id`) answers its ts (the thread under it is the
 * conversation), without one it is refused. "typing…" is answered done without a call: Slack gives
 * bots no typing indicator outside assistant mode.
 *
 * Buttons (`choices`) make a message Block Kit (`choiceMessage`: the text as sections, then the
 * buttons), `text` staying as the notification fallback. An edit with `choices: []` sends
 * `blocks: []`, which Slack reads as "remove the blocks": the message is its text again. An edit
 * without `choices` sends the text alone, and Slack keeps a message's blocks when none are sent —
 * so on a message with buttons it changes only the fallback: the worker edits such a message with
 * its `choices` (the same ones, or `[]`). `answer_tap` posts its notice with `chat.postEphemeral`
 * to the person who tapped, where they tapped (`readTapId`); an empty notice is no call.
 *
 * A `plainText` message (every message of a question asked in the chat) is shown exactly as
 * written, Markdown not converted and `&`, `<`, `>` escaped (`plainMessage.ts`): a post is its text
 * with `mrkdwn: false`, or `plain_text` sections and the buttons; an edit and a notice are always
 * `plain_text` sections (with the edit's buttons, if any), since `chat.update` and
 * `chat.postEphemeral` take no `mrkdwn` — so a plain edit without `choices` leaves no buttons,
 * where the text alone would change only the fallback under them.
 *
 * A message with an `attachment` is a file upload (`#postFile`).
 */
export class SlackReplies {
  readonly #web: WebClient;
  readonly #logger: Logger;
  readonly #uploads: WebClient;

  /** `uploads` carries a file's upload: a client whose timeout allows one (default `web`). */
  constructor(web: WebClient, logger: Logger, uploads: WebClient = web) {
    this.#web = web;
    this.#logger = logger;
    this.#uploads = uploads;
  }

  /** Carries out one reply operation; `file` is the bytes of `message.attachment`. */
  async send(message: OutboundMessage, file?: Uint8Array): Promise<SendReceipt> {
    const method = methodOf(message);
    try {
      return await this.#carryOut(message, file);
    } catch (err) {
      if (err instanceof SendError) throw err;
      const failure = slackApiFailure(err);
      if (failure.kind === "refused" && REACTION_ALREADY.has(failure.error) && (message.command === "add_reaction" || message.command === "remove_reaction")) {
        return { messageId: message.reply_to };
      }
      const error = sendErrorOf(method, failure, err);
      this.#logger.warn({ reason: error.code, method, ...failureDetail(failure) }, "slack refused a reply");
      throw error;
    }
  }

  async #carryOut(message: OutboundMessage, file: Uint8Array | undefined): Promise<SendReceipt> {
    const channel = message.channel.id;
    switch (message.command) {
      case undefined:
        if (message.attachment !== undefined) return this.#postFile(message, message.attachment, file);
        return this.#post(message, message.content.text, message.choices);
      case "edit_message": {
        const ts = targetOf(message);
        const content = message.plainText === true ? plainBlocks(message.content.text, message.choices) : markdownEdit(message.content.text, message.choices);
        await this.#web.chat.update({ channel, ts, ...content });
        return { messageId: message.reply_to };
      }
      case "delete_message":
        await this.#web.chat.delete({ channel, ts: targetOf(message) });
        return { messageId: message.reply_to };
      case "add_reaction":
        await this.#web.reactions.add({ channel, timestamp: targetOf(message), name: slackReactionName(message.content.text) });
        return { messageId: message.reply_to };
      case "remove_reaction":
        await this.#web.reactions.remove({ channel, timestamp: targetOf(message), name: slackReactionName(message.content.text) });
        return { messageId: message.reply_to };
      case "typing":
        return DONE;
      case "answer_tap": {
        const tap = readTapId(message.reply_to);
        if (tap === undefined) throw new SendError("rejected", `answer_tap: ${JSON.stringify(message.reply_to.slice(0, 40))} is not a Slack tap id`);
        const notice = message.content.text;
        if (notice.trim() === "") return { messageId: "" };
        const content = message.plainText === true ? plainBlocks(notice) : { text: markdownToMrkdwn(notice) };
        await this.#web.chat.postEphemeral({ channel: tap.channel, user: tap.user, ...content, ...(tap.threadTs === "" ? {} : { thread_ts: tap.threadTs }) });
        return { messageId: "" };
      }
      case "notice": {
        // One person's eyes only: `reply_to` is their user id, the conversation the message's.
        if (!/^[UW][A-Z0-9]{1,20}$/u.test(message.reply_to)) throw new SendError("rejected", `notice: ${JSON.stringify(message.reply_to.slice(0, 40))} is not a Slack user id`);
        if (message.content.text.trim() === "") return { messageId: "" };
        const content = message.plainText === true ? plainBlocks(message.content.text) : { text: markdownToMrkdwn(message.content.text) };
        const thread = message.channel.thread_id;
        await this.#web.chat.postEphemeral({ channel, user: message.reply_to, ...content, ...(thread === undefined || thread === "" ? {} : { thread_ts: thread }) });
        return { messageId: "" };
      }
      case "create_topic":
        // A thread for a message (a cron job's post) is the thread under it: its ts is the thread_ts.
        if (message.quote_message_id !== undefined) return { messageId: targetOf({ ...message, reply_to: message.quote_message_id }) };
        throw new SendError("rejected", "create_topic: Slack has no topics; a conversation is a thread");
    }
  }

  /** A message (`chat.postMessage`) into the conversation's thread: its receipt is the message's `ts`. */
  async #post(message: OutboundMessage, text: string, choices: readonly OutboundChoice[] | undefined): Promise<SendReceipt> {
    const thread = threadOf(message);
    const content = message.plainText === true ? plainPost(text, choices) : markdownPost(text, choices);
    const posted = await this.#web.chat.postMessage({ channel: message.channel.id, ...content, ...(thread === undefined ? {} : { thread_ts: thread }) });
    if (typeof posted.ts !== "string") throw new SendError("unknown", "Slack answered chat.postMessage without a ts");
    return { messageId: posted.ts };
  }

  /**
   * A file, with WebClient's `filesUploadV2`: `files.getUploadURLExternal` (its name and length),
   * the bytes POSTed to the `upload_url` Slack answers, then `files.completeUploadExternal`, which
   * shares it in the conversation (`channel_id`, its thread as `thread_ts`) with the caption as
   * `initial_comment`, in the message that shows the file. A caption over a message's 4000
   * characters follows the file as messages instead, split as a long text is, the buttons (if any)
   * on the last, whose `ts` is the receipt; otherwise the receipt is `uploadReceipt`'s (a `ts` only
   * when Slack's answer already lists the share, else the file id). A file carries no buttons.
   * Bytes that did not come, or not `attachment.size` of them, are refused without a call.
   */
  async #postFile(message: OutboundMessage, attachment: OutboundAttachment, file: Uint8Array | undefined): Promise<SendReceipt> {
    if (file === undefined || file.byteLength !== attachment.size) throw new SendError("rejected", `send: the bytes of ${JSON.stringify(attachment.filename)} did not come with it`);
    const channel = message.channel.id;
    const thread = threadOf(message);
    const text = message.content.text;
    const captionFits = charCount(text) <= SLACK_MESSAGE_LIMIT;
    const bytes = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
    const comment = text !== "" && captionFits ? { initial_comment: captionOf(message) } : {};
    const target = thread === undefined ? { channel_id: channel } : { channel_id: channel, thread_ts: thread };
    const uploaded = await this.#uploads.filesUploadV2({ ...target, file: bytes, filename: attachment.filename, ...comment });
    const receipt = uploadReceipt(uploaded.files, channel, thread);
    if (receipt === undefined) throw new SendError("unknown", "Slack answered files.completeUploadExternal without a file");
    if (captionFits) return receipt;
    const parts = splitMessage(text, SLACK_MESSAGE_LIMIT);
    let last = receipt;
    for (const [index, part] of parts.entries()) last = await this.#post(message, part, index === parts.length - 1 ? message.choices : undefined);
    return last;
  }
}

/** The comment a file is posted with: its caption as a post's text is (escaped when plain; Slack reads `initial_comment` as mrkdwn). */
function captionOf(message: OutboundMessage): string {
  return message.plainText === true ? escapeSlackText(message.content.text) : markdownToMrkdwn(message.content.text);
}

/** A post's Markdown as mrkdwn, as Block Kit when it has buttons. */
function markdownPost(markdown: string, choices: readonly OutboundChoice[] | undefined): { text: string } | ChoiceMessage {
  const text = markdownToMrkdwn(markdown);
  return choices !== undefined && choices.length > 0 ? choiceMessage(text, choices) : { text };
}

/** An edit's Markdown as mrkdwn: the text alone without `choices` (Slack keeps the blocks), `blocks: []` with none left. */
function markdownEdit(markdown: string, choices: readonly OutboundChoice[] | undefined): { text: string; blocks?: [] } | ChoiceMessage {
  const text = markdownToMrkdwn(markdown);
  return choices === undefined ? { text } : choices.length === 0 ? { text, blocks: [] } : choiceMessage(text, choices);
}

/** The message a command acts on (`reply_to`); refused without a call when it is no Slack `ts`. */
function targetOf(message: OutboundMessage): string {
  if (!TS.test(message.reply_to)) throw new SendError("rejected", `${message.command ?? "send"}: ${JSON.stringify(message.reply_to.slice(0, 40))} is not a Slack message ts`);
  return message.reply_to;
}

/**
 * The thread a message goes to; refused without a call when `thread_id` is no ts (a cron job's
 * typo): Slack would answer ok and show the reply nowhere.
 */
function threadOf(message: OutboundMessage): string | undefined {
  const thread = message.channel.thread_id;
  if (thread === undefined || thread === "") return undefined;
  if (!TS.test(thread)) throw new SendError("rejected", `send: ${JSON.stringify(thread.slice(0, 40))} is not a Slack thread ts`);
  return thread;
}

function methodOf(message: OutboundMessage): string {
  switch (message.command) {
    case undefined:
      return message.attachment === undefined ? "chat.postMessage" : "files.uploadV2";
    case "edit_message":
      return "chat.update";
    case "delete_message":
      return "chat.delete";
    case "add_reaction":
      return "reactions.add";
    case "remove_reaction":
      return "reactions.remove";
    case "typing":
      return "none";
    case "answer_tap":
    case "notice":
      return "chat.postEphemeral";
    case "create_topic":
      return "none";
  }
}
