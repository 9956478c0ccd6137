import { channelObject, messageObject } from "./apiObjects.js";
import { CHANNEL_TYPE, type ChannelRecord } from "./channels.js";
import { DiscordApiError, emptyMessage, missingPermissions, notAuthor } from "./discordApiError.js";
import { messageDeleteEvent } from "./gatewayEvents.js";
import { FormErrors, intAtLeast, intAtMost, notInteger, notSnowflake } from "./formErrors.js";
import { readMessageFields, SETTABLE_FLAGS } from "./messageFields.js";
import { changeMessage, mentionsFor, postMessage, uploadAttachments, visibleChannel } from "./messagePosting.js";
import type { Route, RouteArgs } from "./restRouter.js";
import { isSnowflake } from "./snowflakes.js";
import { readUploads } from "./uploads.js";
import { restReadable, type World } from "./world.js";

const CHANNEL = "/channels/{channel.id}";
const MESSAGE = `${CHANNEL}/messages/{message.id}`;

/** Channels and messages: read, post, edit, delete, history, typing (docs: Resources › Channel, Message). */
export function messageRoutes(world: World): Route[] {
  const render = (message: Parameters<typeof messageObject>[0]) => messageObject(message, world, { gateway: false, readable: restReadable(world) });
  return [
    { name: "getChannel", method: "GET", path: CHANNEL, handle: ({ params }) => ({ status: 200, body: channelObject(visibleChannel(world, params["channel.id"]!), world) }) },
    { name: "getChannelMessages", method: "GET", path: `${CHANNEL}/messages`, handle: (args) => ({ status: 200, body: history(world, args).map(render) }) },
    {
      name: "getChannelMessage",
      method: "GET",
      path: MESSAGE,
      handle: ({ params }) => {
        const channel = visibleChannel(world, params["channel.id"]!);
        if (!world.channels.permissionsOf(channel).readHistory) throw missingPermissions();
        return { status: 200, body: render(world.channels.knownMessage(channel, params["message.id"]!)) };
      },
    },
    { name: "createMessage", method: "POST", path: `${CHANNEL}/messages`, handle: (args) => ({ status: 200, body: render(createMessage(world, args)) }) },
    { name: "editMessage", method: "PATCH", path: MESSAGE, handle: (args) => ({ status: 200, body: render(editMessage(world, args)) }) },
    {
      name: "deleteMessage",
      method: "DELETE",
      path: MESSAGE,
      handle: ({ params }) => {
        const channel = visibleChannel(world, params["channel.id"]!);
        const message = world.channels.knownMessage(channel, params["message.id"]!);
        if (message.authorId !== world.bot.id && !world.channels.permissionsOf(channel).manageMessages) throw missingPermissions();
        message.deleted = true;
        world.sessions.dispatch(messageDeleteEvent(world, message));
        return { status: 204 };
      },
    },
    {
      name: "triggerTypingIndicator",
      method: "POST",
      path: `${CHANNEL}/typing`,
      handle: ({ params }) => {
        const channel = visibleChannel(world, params["channel.id"]!);
        if (!canSend(world, channel)) throw missingPermissions();
        return { status: 204 };
      },
    },
  ];
}

function canSend(world: World, channel: ChannelRecord): boolean {
  const permissions = world.channels.permissionsOf(channel);
  return channel.thread ? permissions.sendInThreads : permissions.send;
}

function createMessage(world: World, { params, json, files, textFields }: RouteArgs) {
  const uploads = readUploads(json, { files, textFields }, world.uploadLimitBytes, false);
  const channel = visibleChannel(world, params["channel.id"]!);
  if (channel.type === CHANNEL_TYPE.GUILD_CATEGORY || channel.type === CHANNEL_TYPE.GUILD_FORUM) {
    throw new DiscordApiError(400, { message: "Cannot send messages in a non-text channel", code: 50008 });
  }
  const permissions = world.channels.permissionsOf(channel);
  if (!canSend(world, channel)) throw missingPermissions();
  if (uploads.length > 0 && !permissions.attachFiles) throw missingPermissions();
  const errors = new FormErrors();
  const fields = readMessageFields(json, errors, SETTABLE_FLAGS.create);
  errors.throwIfAny();
  const hasStickers = (fields.stickerIds?.length ?? 0) > 0;
  if (!fields.content && !fields.embeds?.length && !fields.components?.length && files.length === 0 && !hasStickers) throw emptyMessage();
  let replyTo;
  if (fields.reference) {
    if (!permissions.readHistory) throw missingPermissions();
    const sameChannel = fields.reference.channelId === undefined || fields.reference.channelId === channel.id;
    replyTo = sameChannel ? world.channels.live(channel, fields.reference.messageId) : undefined;
    if (!replyTo && fields.reference.failIfNotExists) {
      errors.add(["message_reference"], { code: "MESSAGE_REFERENCE_UNKNOWN_MESSAGE", message: "Unknown message" });
      errors.throwIfAny();
    }
  }
  const content = fields.content ?? "";
  return postMessage(world, channel, {
    authorId: world.bot.id,
    content,
    embeds: fields.embeds,
    components: fields.components,
    attachments: uploadAttachments(world, channel, uploads),
    flags: fields.flags,
    replyTo,
    nonce: fields.nonce,
    mentions: mentionsFor(world, channel, content, fields.allowedMentions, { canMentionEveryone: permissions.mentionEveryone, ...(replyTo ? { repliedAuthorId: replyTo.authorId } : {}) }),
  });
}

/** Edit Message: only the bot's own (else 50005); fields absent stay, `content: null` clears; mentions re-parsed. */
function editMessage(world: World, { params, json, files, textFields }: RouteArgs) {
  const uploads = readUploads(json, { files, textFields }, world.uploadLimitBytes, true);
  const channel = visibleChannel(world, params["channel.id"]!);
  const message = world.channels.knownMessage(channel, params["message.id"]!);
  if (message.authorId !== world.bot.id) throw notAuthor();
  if (uploads.length > 0 && !world.channels.permissionsOf(channel).attachFiles) throw missingPermissions();
  const errors = new FormErrors();
  const fields = readMessageFields(json, errors, SETTABLE_FLAGS.edit);
  errors.throwIfAny();
  const kept = fields.keepAttachments ? message.attachments.filter((attachment) => fields.keepAttachments!.includes(attachment.id)) : message.attachments;
  const content = fields.content === undefined ? undefined : (fields.content ?? "");
  changeMessage(world, message, {
    ...(content !== undefined ? { content, mentions: mentionsFor(world, channel, content, fields.allowedMentions, { canMentionEveryone: world.channels.permissionsOf(channel).mentionEveryone }) } : {}),
    ...(fields.embeds !== undefined ? { embeds: fields.embeds } : {}),
    ...(fields.components !== undefined ? { components: fields.components } : {}),
    ...(fields.flags !== undefined ? { flags: fields.flags } : {}),
    ...(fields.keepAttachments !== undefined || uploads.length > 0 ? { attachments: [...kept, ...uploadAttachments(world, channel, uploads)] } : {}),
  });
  return message;
}

/** Get Channel Messages: newest first; `limit` 1–100 (default 50); one of before, after, around. */
function history(world: World, { params, query }: RouteArgs) {
  const channel = visibleChannel(world, params["channel.id"]!);
  const errors = new FormErrors();
  let limit = 50;
  const rawLimit = query.get("limit");
  if (rawLimit !== null) {
    limit = Number(rawLimit);
    if (!/^-?\d+$/.test(rawLimit)) errors.add(["limit"], notInteger(rawLimit));
    else if (limit > 100) errors.add(["limit"], intAtMost(100));
    else if (limit < 1) errors.add(["limit"], intAtLeast(1));
  }
  const anchors = (["before", "after", "around"] as const).filter((name) => query.has(name));
  for (const name of anchors) if (!isSnowflake(query.get(name))) errors.add([name], notSnowflake(query.get(name)));
  // The docs: "The before, after, and around parameters are mutually exclusive" (the wording here is the fake's).
  if (anchors.length > 1) errors.add([], { code: "BASE_TYPE_MUTUALLY_EXCLUSIVE", message: "before, after and around are mutually exclusive" });
  errors.throwIfAny();
  // Without READ_MESSAGE_HISTORY no messages come back (docs: Get Channel Messages).
  if (!world.channels.permissionsOf(channel).readHistory) return [];
  const anchor = anchors[0];
  return world.channels.history(channel, { limit, ...(anchor ? { [anchor]: query.get(anchor)! } : {}) });
}
