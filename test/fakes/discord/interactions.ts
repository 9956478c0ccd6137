import { randomBytes } from "node:crypto";
import { channelObject, memberObject, messageObject, userObject } from "./apiObjects.js";
import type { ChannelRecord } from "./channels.js";
import { permissionBits } from "./permissions.js";
import type { World } from "./world.js";

/** Interaction types the fake's users make (docs: Interactions › Receiving and Responding). */
export const INTERACTION_TYPE = { APPLICATION_COMMAND: 2, MESSAGE_COMPONENT: 3 } as const;
/** Interaction callback types. */
export const CALLBACK_TYPE = { PONG: 1, CHANNEL_MESSAGE_WITH_SOURCE: 4, DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE: 5, DEFERRED_UPDATE_MESSAGE: 6, UPDATE_MESSAGE: 7, AUTOCOMPLETE_RESULT: 8, MODAL: 9, PREMIUM_REQUIRED: 10, LAUNCH_ACTIVITY: 12 } as const;

/** One interaction: who made it where, and how the bot answered it. */
export interface InteractionRecord {
  readonly id: string;
  readonly token: string;
  readonly type: number;
  readonly channelId: string;
  readonly guildId: string | undefined;
  readonly userId: string;
  readonly createdAt: number;
  /** The slash command's name (type 2). */
  readonly commandName: string | undefined;
  /** The message whose component was used (type 3). */
  readonly componentMessageId: string | undefined;
  /** The interaction payload as INTERACTION_CREATE carried it. */
  payload: Record<string, unknown>;
  /** The initial response's callback type and data; only one is accepted. */
  response: { readonly type: number; readonly data: unknown; readonly at: number } | undefined;
  /** The message @original names: the response's own (types 4, 5) or the component's message (6, 7). */
  originalMessageId: string | undefined;
  /** The follow-up messages sent through the interaction's webhook, oldest first. */
  readonly followUpIds: string[];
}

/** Interactions by id, tokens valid for 15 minutes (docs). */
export class Interactions {
  readonly byId = new Map<string, InteractionRecord>();

  create(world: World, fields: Omit<InteractionRecord, "id" | "token" | "createdAt" | "payload" | "response" | "originalMessageId" | "followUpIds">): InteractionRecord {
    const id = world.ids.next();
    // Shaped as Discord's: "interaction:" in base64, then the id and a secret.
    const token = `aW50ZXJhY3Rpb246${Buffer.from(`${id}:${randomBytes(48).toString("base64url")}`).toString("base64url")}`;
    const record: InteractionRecord = { ...fields, id, token, createdAt: world.now(), payload: {}, response: undefined, originalMessageId: undefined, followUpIds: [] };
    this.byId.set(id, record);
    return record;
  }

  byToken(token: string): InteractionRecord | undefined {
    return [...this.byId.values()].find((record) => record.token === token);
  }
}

/**
 * The interaction object INTERACTION_CREATE carries: in a guild the invoking `member` (with `user` and
 * `permissions`), in a DM the `user`; the channel, the bot's `app_permissions`, a continuation token.
 */
export function interactionObject(world: World, record: InteractionRecord, channel: ChannelRecord, data: Record<string, unknown>): Record<string, unknown> {
  const user = world.directory.user(record.userId)!;
  const guild = record.guildId ? world.directory.findGuild(record.guildId) : undefined;
  const member = guild?.members.get(record.userId);
  const message = record.componentMessageId ? world.channels.find(channel.id)?.messages.get(record.componentMessageId) : undefined;
  return {
    id: record.id,
    application_id: world.applicationId,
    type: record.type,
    data,
    ...(guild ? { guild_id: guild.id, guild: { id: guild.id, locale: "en-US", features: [] }, guild_locale: "en-US" } : {}),
    channel_id: channel.id,
    channel: channelObject(channel, world),
    ...(guild && member ? { member: { ...memberObject(member, world.directory, true), permissions: guild.roles.get(guild.id)?.permissions ?? "0" } } : { user: userObject(user) }),
    token: record.token,
    version: 1,
    ...(message ? { message: messageObject(message, world, { gateway: false, readable: () => true }) } : {}),
    app_permissions: permissionBits(world.channels.permissionsOf(channel)),
    locale: "en-US",
    entitlements: [],
    authorizing_integration_owners: { "0": guild ? guild.id : "0" },
    context: guild ? 0 : 1,
    attachment_size_limit: 10_485_760,
  };
}
