import { messageObject } from "./apiObjects.js";
import { alreadyAcknowledged, emptyMessage, unknownInteraction, unknownMessage, unknownWebhook } from "./discordApiError.js";
import { FormErrors, choices, isObject, notBoolean, notObject, required } from "./formErrors.js";
import { CALLBACK_TYPE, INTERACTION_TYPE, type InteractionRecord, type Interactions } from "./interactions.js";
import { MESSAGE_FLAG, readMessageFields, SETTABLE_FLAGS, type MessageFields } from "./messageFields.js";
import { changeMessage, MESSAGE_TYPE, mentionsFor, postMessage } from "./messagePosting.js";
import type { Route } from "./restRouter.js";
import { restReadable, type World } from "./world.js";

/** How long an interaction's token lives (docs: 15 minutes). */
const TOKEN_LIFETIME_MS = 15 * 60_000;

/**
 * Create Interaction Response (once per interaction: a second is 40060; after the response window, 3 s as
 * Discord gives, 10062 Unknown interaction), Edit Original Interaction Response and Create Followup
 * Message. Types 4 and 5 answer any interaction; 6 and 7 only a component's (docs: "Only valid for
 * component-based interactions"). None takes the bot token: the interaction token authorizes them.
 */
export function interactionRoutes(world: World, interactions: Interactions, responseWindowMs: () => number): Route[] {
  const render = (id: string, record: InteractionRecord) => messageObject(world.channels.known(record.channelId).messages.get(id)!, world, { gateway: false, readable: restReadable(world) });
  return [
    {
      name: "createInteractionResponse",
      method: "POST",
      path: "/interactions/{interaction.id}/{interaction.token}/callback",
      auth: false,
      handle: ({ params, query, json }) => {
        const record = interactions.byId.get(params["interaction.id"]!);
        if (!record || record.token !== params["interaction.token"]) throw unknownInteraction();
        if (record.response) throw alreadyAcknowledged();
        if (world.now() - record.createdAt > responseWindowMs()) throw unknownInteraction();
        const { type, fields } = readCallback(json, record);
        respond(world, record, type, fields);
        record.response = { type, data: isObject(json) ? json.data : undefined, at: world.now() };
        if (query.get("with_response") !== "true") return { status: 204 };
        const original = record.originalMessageId ? world.channels.known(record.channelId).messages.get(record.originalMessageId) : undefined;
        return {
          status: 200,
          body: {
            interaction: {
              id: record.id,
              type: record.type,
              ...(original ? { response_message_id: original.id, response_message_loading: (original.flags & MESSAGE_FLAG.LOADING) !== 0, response_message_ephemeral: (original.flags & MESSAGE_FLAG.EPHEMERAL) !== 0 } : {}),
            },
            resource: { type, ...(original && (type === 4 || type === 7) ? { message: render(original.id, record) } : {}) },
          },
        };
      },
    },
    {
      name: "editOriginalInteractionResponse",
      method: "PATCH",
      path: "/webhooks/{application.id}/{interaction.token}/messages/@original",
      auth: false,
      handle: ({ params, json }) => {
        const record = interactions.byToken(params["interaction.token"]!);
        if (params["application.id"] !== world.applicationId || !record || world.now() - record.createdAt > TOKEN_LIFETIME_MS) throw unknownWebhook();
        if (!record.originalMessageId) throw unknownMessage();
        const channel = world.channels.known(record.channelId);
        const message = world.channels.knownMessage(channel, record.originalMessageId);
        const errors = new FormErrors();
        const fields = readMessageFields(json, errors, SETTABLE_FLAGS.edit);
        errors.throwIfAny();
        const content = fields.content === undefined ? undefined : (fields.content ?? "");
        // The first edit of a deferred response ends its loading state.
        const flags = message.flags & ~MESSAGE_FLAG.LOADING;
        changeMessage(world, message, {
          flags,
          ...(content !== undefined ? { content, mentions: mentionsFor(world, channel, content, fields.allowedMentions ?? interactionMentions, { canMentionEveryone: true }) } : {}),
          ...(fields.embeds !== undefined ? { embeds: fields.embeds } : {}),
          ...(fields.components !== undefined ? { components: fields.components } : {}),
        });
        return { status: 200, body: render(message.id, record) };
      },
    },
    {
      name: "createFollowupMessage",
      method: "POST",
      path: "/webhooks/{application.id}/{interaction.token}",
      auth: false,
      handle: ({ params, query, json }) => {
        const record = interactions.byToken(params["interaction.token"]!);
        if (params["application.id"] !== world.applicationId || !record || world.now() - record.createdAt > TOKEN_LIFETIME_MS) throw unknownWebhook();
        // The docs order it after the initial response; before one, the webhook is not there yet (the fake's reading).
        if (!record.response) throw unknownWebhook();
        const errors = new FormErrors();
        const wait = query.get("wait");
        if (wait !== null && wait !== "true" && wait !== "false") errors.add(["wait"], notBoolean);
        const fields = readMessageFields(json, errors, SETTABLE_FLAGS.interaction);
        errors.throwIfAny();
        const content = fields.content ?? "";
        if (!content && !fields.embeds?.length && !fields.components?.length) throw emptyMessage();
        const channel = world.channels.known(record.channelId);
        const message = postMessage(world, channel, {
          authorId: world.bot.id,
          content,
          embeds: fields.embeds,
          components: fields.components,
          flags: fields.flags ?? 0,
          mentions: mentionsFor(world, channel, content, fields.allowedMentions ?? interactionMentions, { canMentionEveryone: true }),
          interaction: { id: record.id, type: record.type, name: record.commandName, userId: record.userId },
        });
        record.followUpIds.push(message.id);
        return wait === "true" ? { status: 200, body: render(message.id, record) } : { status: 204 };
      },
    },
  ];
}

/** Interactions and webhooks parse only user mentions by default (docs: Allowed Mentions Object). */
const interactionMentions = { parse: new Set(["users"] as const), users: [], roles: [], repliedUser: false };

function readCallback(json: unknown, record: InteractionRecord): { type: number; fields: MessageFields | undefined } {
  const errors = new FormErrors();
  if (!isObject(json)) {
    errors.add([], notObject);
    errors.throwIfAny();
  }
  const body = json as Record<string, unknown>;
  const known = Object.values(CALLBACK_TYPE) as number[];
  if (body.type === undefined) errors.add(["type"], required);
  else if (!known.includes(body.type as number)) errors.add(["type"], choices(known));
  errors.throwIfAny();
  const type = body.type as number;
  const component = record.type === INTERACTION_TYPE.MESSAGE_COMPONENT;
  // The wording of these refusals is the fake's: the docs say which types are valid, not what Discord answers.
  if ((type === CALLBACK_TYPE.DEFERRED_UPDATE_MESSAGE || type === CALLBACK_TYPE.UPDATE_MESSAGE) && !component) {
    errors.add(["type"], { code: "INTERACTION_CALLBACK_TYPE_INVALID", message: "This callback type is only valid for component interactions" });
  } else if (type !== 4 && type !== 5 && type !== 6 && type !== 7) {
    errors.add(["type"], { code: "INTERACTION_CALLBACK_TYPE_INVALID", message: `fake Discord does not model callback type ${type} (it has 4, 5, 6, 7)` });
  }
  errors.throwIfAny();
  if (type === 6) return { type, fields: undefined };
  if (body.data !== undefined && body.data !== null && !isObject(body.data)) errors.add(["data"], notObject);
  const fields = readMessageFields(isObject(body.data) ? body.data : undefined, errors, SETTABLE_FLAGS.interaction);
  errors.throwIfAny();
  if (type === 4 && !fields.content && !fields.embeds?.length && !fields.components?.length) throw emptyMessage();
  return { type, fields };
}

function respond(world: World, record: InteractionRecord, type: number, fields: MessageFields | undefined): void {
  const channel = world.channels.known(record.channelId);
  if (type === CALLBACK_TYPE.DEFERRED_UPDATE_MESSAGE || type === CALLBACK_TYPE.UPDATE_MESSAGE) {
    record.originalMessageId = record.componentMessageId;
    if (type === CALLBACK_TYPE.DEFERRED_UPDATE_MESSAGE || !fields) return;
    const message = world.channels.knownMessage(channel, record.componentMessageId!);
    const content = fields.content === undefined ? undefined : (fields.content ?? "");
    changeMessage(world, message, {
      ...(content !== undefined ? { content, mentions: mentionsFor(world, channel, content, fields.allowedMentions ?? interactionMentions, { canMentionEveryone: true }) } : {}),
      ...(fields.embeds !== undefined ? { embeds: fields.embeds } : {}),
      ...(fields.components !== undefined ? { components: fields.components } : {}),
    });
    return;
  }
  const deferred = type === CALLBACK_TYPE.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE;
  const content = deferred ? "" : (fields?.content ?? "");
  const ephemeral = (fields?.flags ?? 0) & MESSAGE_FLAG.EPHEMERAL;
  const componentMessage = record.componentMessageId ? world.channels.live(channel, record.componentMessageId) : undefined;
  const message = postMessage(world, channel, {
    authorId: world.bot.id,
    content,
    embeds: deferred ? [] : fields?.embeds,
    components: deferred ? [] : fields?.components,
    flags: deferred ? MESSAGE_FLAG.LOADING | ephemeral : (fields?.flags ?? 0),
    type: componentMessage ? MESSAGE_TYPE.REPLY : MESSAGE_TYPE.CHAT_INPUT_COMMAND,
    replyTo: componentMessage,
    mentions: mentionsFor(world, channel, content, fields?.allowedMentions ?? interactionMentions, { canMentionEveryone: true }),
    interaction: { id: record.id, type: record.type, name: record.commandName, userId: record.userId },
  });
  record.originalMessageId = message.id;
}
