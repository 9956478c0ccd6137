import { checkBlocks, length } from "./blocks.js";
import type { SlackMessage } from "./messageStore.js";
import { booleanArg, jsonArg, stringArg } from "./paramReaders.js";
import type { Params } from "./requestParams.js";
import { botConversation, botMessage, type SlackContext, type WebMethod } from "./slackContext.js";
import { invalidArguments, SlackApiError } from "./slackApiError.js";
import type { Conversation } from "./workspace.js";

/** `chat.postMessage`'s text limit. Slack's page says longer text is cut with a `message_truncated` warning; the fake refuses it. */
export const POST_TEXT_LIMIT = 40_000;
/** `chat.update`'s text limit, as its page documents `msg_too_long`. */
export const UPDATE_TEXT_LIMIT = 4_000;
/** `markdown_text`'s limit on both methods. */
export const MARKDOWN_TEXT_LIMIT = 12_000;

/** `chat.postMessage`, `chat.update`, `chat.delete`, `chat.postEphemeral`. */
export function chatMethods(context: SlackContext): WebMethod[] {
  const { store, events, bot } = context;
  const write = { token: "bot", json: true, scope: () => "chat:write" } as const;

  return [
    {
      name: "chat.postMessage",
      ...write,
      handle: (params) => {
        const conversation = postTarget(context, stringArg(params, "channel"));
        const content = messageContent(context, params, POST_TEXT_LIMIT);
        const threadTs = stringArg(params, "thread_ts");
        const broadcast = booleanArg(params, "reply_broadcast") ?? false;
        for (const flag of ["unfurl_links", "unfurl_media", "as_user", "link_names"]) booleanArg(params, flag);
        // `mrkdwn: false` stays on the message: clients then show its text unformatted (control sequences are still read).
        const formatted = booleanArg(params, "mrkdwn") ?? true;
        const ts = store.nextTs();
        const message = botMessage(context, { ...content, ts, ...(threadTs !== undefined ? { thread_ts: threadTs } : {}), ...(formatted ? {} : { mrkdwn: false }) });
        const stored = store.add(conversation.id, message, { broadcast: broadcast && threadTs !== undefined });
        if (stored.broadcast) message.subtype = "thread_broadcast";
        if (context.echoBotMessages && !stored.lost) events.message(conversation, message);
        return { channel: conversation.id, ts, message: structuredClone(message) };
      },
    },
    {
      name: "chat.update",
      ...write,
      handle: (params) => {
        const { conversation, stored } = ownMessage(params, "cant_update_message");
        const content = messageContent(context, params, UPDATE_TEXT_LIMIT);
        const before = structuredClone(stored.message);
        stored.earlierTexts.push(stored.message.text);
        // Blocks left out are kept; `blocks: []` removes them (chat.update's page says both).
        Object.assign(stored.message, content, { edited: { user: bot.user.id, ts: store.nextTs() } });
        if (stored.message.blocks?.length === 0) delete stored.message.blocks;
        // chat.update's page lists no `mrkdwn`: a `mrkdwn` given is not read, and the new text is read as
        // mrkdwn, as its unspecified `parse` and `link_names` go back to their defaults.
        delete stored.message.mrkdwn;
        if (context.echoBotMessages) events.messageChanged(conversation, stored.message, before, stored.message.edited!.ts);
        return { channel: conversation.id, ts: stored.message.ts, text: stored.message.text, message: structuredClone(stored.message) };
      },
    },
    {
      name: "chat.postEphemeral",
      ...write,
      handle: (params) => {
        const conversation = botConversation(context, stringArg(params, "channel"), "write");
        const userId = stringArg(params, "user");
        if (userId === undefined) throw invalidArguments("missing required field: user [json-pointer:/user]");
        if (!context.workspace.user(userId)) throw new SlackApiError("user_not_found");
        if (!conversation.members.has(userId)) throw new SlackApiError("user_not_in_channel");
        const content = messageContent(context, params, POST_TEXT_LIMIT);
        const threadTs = stringArg(params, "thread_ts");
        for (const flag of ["as_user", "link_names"]) booleanArg(params, flag);
        const messageTs = store.nextTs();
        context.ephemerals.push({ channel: conversation.id, user: userId, text: content.text, blocks: content.blocks, thread_ts: threadTs, message_ts: messageTs });
        return { message_ts: messageTs };
      },
    },
    {
      name: "chat.delete",
      ...write,
      handle: (params) => {
        const { conversation, stored } = ownMessage(params, "cant_delete_message");
        stored.deleted = true;
        if (context.echoBotMessages) events.messageDeleted(conversation, stored.message, store.nextTs());
        return { channel: conversation.id, ts: stored.message.ts };
      },
    },
  ];

  /** The message a call names by `channel` and `ts`, which must be this bot's own. */
  function ownMessage(params: Params, notOwn: string) {
    const conversation = botConversation(context, stringArg(params, "channel"), "write");
    const ts = stringArg(params, "ts");
    const stored = ts === undefined ? undefined : store.live(conversation.id, ts);
    if (!stored) throw new SlackApiError("message_not_found");
    if (stored.message.user !== bot.user.id) throw new SlackApiError(notOwn);
    return { conversation, stored };
  }
}

/** `chat.postMessage`'s `channel`: a conversation id or name, or a user id (the bot's DM with that user). */
function postTarget(context: SlackContext, ref: string | undefined): Conversation {
  const user = ref === undefined ? undefined : context.workspace.user(ref);
  if (user && !user.is_bot) return context.workspace.im(context.bot.user.id, user.id);
  return botConversation(context, ref, "write");
}

/**
 * What a message carries: `text`, `blocks`, `attachments` or `markdown_text` — at least one (`no_text`),
 * `markdown_text` alone (`markdown_text_conflict`), text within the method's limit (`msg_too_long`), blocks
 * as Block Kit allows them, at most 100 attachments, metadata with `event_type` and `event_payload`. The
 * text as Slack keeps it: with names linked when the call asks (`linkedNames`).
 */
function messageContent(context: SlackContext, params: Params, textLimit: number): Pick<SlackMessage, "text"> & Partial<SlackMessage> {
  const typed = stringArg(params, "text");
  const text = typed === undefined ? undefined : linkedNames(context, params, typed);
  const markdown = stringArg(params, "markdown_text");
  const blocks = jsonArg(params, "blocks");
  const attachments = jsonArg(params, "attachments");
  const metadata = jsonArg(params, "metadata");
  if (markdown !== undefined && (text !== undefined || blocks.given)) throw new SlackApiError("markdown_text_conflict");
  const checkedBlocks = blocks.given ? checkBlocks(blocks.value, blocks.value !== undefined) : undefined;
  if (attachments.given) {
    if (!Array.isArray(attachments.value)) throw new SlackApiError("invalid_attachments");
    if (attachments.value.length > 100) throw new SlackApiError("too_many_attachments");
  }
  if (text === undefined && markdown === undefined && !blocks.given && !attachments.given) throw new SlackApiError("no_text");
  if (text !== undefined && length(text) > textLimit) throw new SlackApiError("msg_too_long");
  if (markdown !== undefined && length(markdown) > MARKDOWN_TEXT_LIMIT) throw new SlackApiError("msg_too_long");
  if (metadata.given) {
    const value = metadata.value as { event_type?: unknown; event_payload?: unknown } | undefined;
    if (typeof value?.event_type !== "string" || typeof value.event_payload !== "object" || value.event_payload === null) throw new SlackApiError("invalid_metadata_format");
  }
  return {
    text: text ?? markdown ?? "",
    ...(markdown !== undefined ? { blocks: [{ type: "markdown", text: markdown }] } : {}),
    ...(checkedBlocks ? { blocks: withBlockIds(checkedBlocks) } : {}),
    ...(attachments.given ? { attachments: attachments.value as unknown[] } : {}),
    ...(metadata.given ? { metadata: metadata.value } : {}),
  };
}

/**
 * `parse: "full"` or `link_names: true`: Slack turns a typed `@channel`, `@here`, `@everyone`, or the
 * `@name` of someone in the workspace, into the mention it names (`<!channel>`, `<@U…>`). Without
 * them (`parse` defaults to `none`) such text stays text.
 */
function linkedNames(context: SlackContext, params: Params, text: string): string {
  if (booleanArg(params, "link_names") !== true && stringArg(params, "parse") !== "full") return text;
  return text.replace(/(^|[\s(])@([A-Za-z0-9._-]+)/g, (whole, before: string, name: string) => {
    if (name === "channel" || name === "here" || name === "everyone") return `${before}<!${name}>`;
    const user = context.workspace.userNamed(name);
    return user ? `${before}<@${user.id}>` : whole;
  });
}

/** Blocks as Slack keeps them: each with a `block_id`, made up where the caller gave none (Slack's are random). */
function withBlockIds(blocks: unknown[]): unknown[] {
  const given = new Set(blocks.map((block) => (block as { block_id?: unknown }).block_id));
  return blocks.map((block, index) => {
    if ((block as { block_id?: unknown }).block_id !== undefined) return block;
    let id = `fk${index.toString(36)}`;
    while (given.has(id)) id += "x";
    given.add(id);
    return { ...(block as Record<string, unknown>), block_id: id };
  });
}
