import type { APIChannel, APIMessage } from "@discordjs/core";
import { channelObject, messageObject } from "./apiObjects.js";
import type { ApplicationCommands } from "./applicationCommands.js";
import type { ChannelRecord } from "./channels.js";
import { BUTTON_STYLE, COMPONENT_TYPE, findComponent } from "./components.js";
import { CHANNEL_TYPE } from "./channels.js";
import type { FakeUser } from "./directory.js";
import { interactionCreateEvent, messageDeleteEvent, reactionEvent, threadCreateEvent } from "./gatewayEvents.js";
import { INTERACTION_TYPE, interactionObject, type InteractionRecord, type Interactions } from "./interactions.js";
import { mentionsIn, type AllowedMentions } from "./mentions.js";
import { MESSAGE_FLAG } from "./messageFields.js";
import { changeMessage, postMessage } from "./messagePosting.js";
import { readReactionEmoji } from "./reactionEmoji.js";
import { slashData } from "./slashOptions.js";
import type { World } from "./world.js";

/** A file a user attaches; the CDN serves it at the attachment's `url`. */
export interface AttachmentInput {
  readonly filename: string;
  readonly bytes: Uint8Array | string;
  readonly contentType?: string;
  readonly width?: number;
  readonly height?: number;
  /** A voice message: the message gets IS_VOICE_MESSAGE and the attachment `duration_secs`. */
  readonly voiceSeconds?: number;
}

export interface UserMessageOptions {
  /** The message (in the same channel) it replies to. */
  readonly replyTo?: string;
  /** Whether the reply pings the replied-to author; Discord's client does by default, so it is true unless false. */
  readonly replyPing?: boolean;
  readonly attachments?: readonly AttachmentInput[];
}

export interface ActorContext {
  readonly world: World;
  readonly interactions: Interactions;
  readonly commands: ApplicationCommands;
}

/**
 * A user's (or another bot's) side of Discord: what they do becomes the state a REST call reads and the
 * dispatches the bot's sessions get, shaped as Discord shapes them (mentions parsed from `<@id>`, `<@&id>`
 * and @everyone; a pinging reply mentions the replied-to author; attachments on the CDN).
 */
export class UserActor {
  constructor(
    readonly user: FakeUser,
    private readonly context: ActorContext,
  ) {}

  message(channelId: string, content: string, options: UserMessageOptions = {}): APIMessage {
    const { world } = this.context;
    const channel = this.channel(channelId);
    const replyTo = options.replyTo === undefined ? undefined : world.channels.live(channel, options.replyTo);
    if (options.replyTo !== undefined && !replyTo) throw new Error(`fake Discord: channel ${channelId} has no message ${options.replyTo} to reply to`);
    const attachments = (options.attachments ?? []).map((file) =>
      world.cdn.attach(channel.id, world.ids.next(), file.filename, typeof file.bytes === "string" ? Buffer.from(file.bytes) : file.bytes, {
        contentType: file.contentType ?? "application/octet-stream",
        ...(file.width !== undefined ? { width: file.width, height: file.height ?? file.width } : {}),
        ...(file.voiceSeconds !== undefined ? { durationSecs: file.voiceSeconds } : {}),
      }),
    );
    const ping: AllowedMentions | undefined = replyTo ? { parse: new Set(["users", "roles", "everyone"]), users: [], roles: [], repliedUser: options.replyPing !== false } : undefined;
    const guild = channel.guildId ? world.directory.findGuild(channel.guildId) : undefined;
    const stored = postMessage(world, channel, {
      authorId: this.user.id,
      content,
      attachments,
      flags: options.attachments?.some((file) => file.voiceSeconds !== undefined) ? MESSAGE_FLAG.IS_VOICE_MESSAGE : 0,
      replyTo,
      mentions: mentionsIn(content, { directory: world.directory, guild, canMentionEveryone: true }, ping, replyTo?.authorId),
    });
    return this.render(stored);
  }

  /** The user edits their own message: MESSAGE_UPDATE with the new content and mentions. */
  edit(channelId: string, messageId: string, content: string): APIMessage {
    const { world } = this.context;
    const channel = this.channel(channelId);
    const stored = this.own(channel, messageId);
    const guild = channel.guildId ? world.directory.findGuild(channel.guildId) : undefined;
    changeMessage(world, stored, { content, mentions: mentionsIn(content, { directory: world.directory, guild, canMentionEveryone: true }, undefined) });
    return this.render(stored);
  }

  delete(channelId: string, messageId: string): void {
    const stored = this.own(this.channel(channelId), messageId);
    stored.deleted = true;
    this.context.world.sessions.dispatch(messageDeleteEvent(this.context.world, stored));
  }

  /** Reacts with a Unicode emoji or a custom one's `name:id`: MESSAGE_REACTION_ADD. */
  react(channelId: string, messageId: string, emoji: string): void {
    const { world } = this.context;
    const stored = world.channels.live(this.channel(channelId), messageId);
    const parsed = readReactionEmoji(encodeURIComponent(emoji), world.directory);
    if (!stored || !parsed) throw new Error(`fake Discord: cannot react ${emoji} to ${messageId} in ${channelId}`);
    const reaction = stored.reactions.get(parsed.key) ?? { emoji: { id: parsed.id, name: parsed.name }, users: new Set<string>() };
    stored.reactions.set(parsed.key, reaction);
    if (reaction.users.has(this.user.id)) return;
    reaction.users.add(this.user.id);
    world.sessions.dispatch(reactionEvent(world, "MESSAGE_REACTION_ADD", stored, reaction, this.user.id));
  }

  /** Starts a thread, from a message or (no message) on its own: THREAD_CREATE, as when a person does it. */
  startThread(channelId: string, name: string, options: { fromMessage?: string; private?: boolean } = {}): APIChannel {
    const { world } = this.context;
    const parent = this.channel(channelId);
    const starter = options.fromMessage === undefined ? undefined : world.channels.live(parent, options.fromMessage);
    if (options.fromMessage !== undefined && (!starter || starter.threadId)) throw new Error(`fake Discord: no thread can start from ${options.fromMessage}`);
    const thread = world.channels.addThread(parent, { name, ownerId: this.user.id, type: options.private ? CHANNEL_TYPE.PRIVATE_THREAD : CHANNEL_TYPE.PUBLIC_THREAD, ...(starter ? { starterMessageId: starter.id } : {}) });
    if (starter) starter.threadId = thread.id;
    world.sessions.dispatch(threadCreateEvent(world, thread));
    return channelObject(thread, world);
  }

  /** Runs a registered slash command with option values by name: INTERACTION_CREATE (type 2). */
  slash(channelId: string, command: string, options: Readonly<Record<string, unknown>> = {}): InteractionRecord {
    const { world, commands } = this.context;
    const channel = this.channel(channelId);
    const registered = commands.find(command, channel.guildId);
    if (!registered) throw new Error(`fake Discord: no slash command /${command} is registered where ${channelId} is`);
    const record = this.context.interactions.create(world, { type: INTERACTION_TYPE.APPLICATION_COMMAND, channelId: channel.id, guildId: channel.guildId, userId: this.user.id, commandName: command, componentMessageId: undefined });
    return this.dispatch(record, channel, slashData(world, registered, options, channel.guildId));
  }

  /**
   * Presses a button of a bot message: INTERACTION_CREATE (type 3, component_type 2) with a fresh
   * token. Only a button the message shows now, enabled and not a link (a link opens its URL and
   * sends nothing), as Discord's client allows.
   */
  press(channelId: string, messageId: string, customId: string): InteractionRecord {
    return this.useComponent(channelId, messageId, customId, undefined);
  }

  /** Picks values in a select menu of a bot message: INTERACTION_CREATE (type 3) with `values`. */
  select(channelId: string, messageId: string, customId: string, values: readonly string[]): InteractionRecord {
    return this.useComponent(channelId, messageId, customId, values);
  }

  /**
   * A press as `press` makes it (the interaction issued, its token valid), whose INTERACTION_CREATE
   * `alter` changes before it is sent: what a bot must not take on trust, since a gateway payload
   * is only data (a field missing, of another type, out of bounds).
   */
  pressAltered(channelId: string, messageId: string, customId: string, alter: (payload: Record<string, unknown>) => Record<string, unknown>): InteractionRecord {
    return this.useComponent(channelId, messageId, customId, undefined, alter);
  }

  private useComponent(channelId: string, messageId: string, customId: string, values: readonly string[] | undefined, alter?: (payload: Record<string, unknown>) => Record<string, unknown>): InteractionRecord {
    const { world } = this.context;
    const channel = this.channel(channelId);
    const message = world.channels.live(channel, messageId);
    const component = message ? findComponent(message.components, customId) : undefined;
    if (!message || !component) throw new Error(`fake Discord: message ${messageId} in ${channelId} has no component ${customId}`);
    if (message.authorId !== world.bot.id) throw new Error(`fake Discord: message ${messageId} is not the bot's: its components send the bot nothing`);
    const isButton = component.type === COMPONENT_TYPE.BUTTON;
    if (isButton !== (values === undefined)) throw new Error(`fake Discord: component ${customId} is ${isButton ? "a button" : "a select menu"}`);
    if (component.disabled || component.style === BUTTON_STYLE.LINK) throw new Error(`fake Discord: component ${customId} cannot be used (disabled, or a link)`);
    const record = this.context.interactions.create(world, { type: INTERACTION_TYPE.MESSAGE_COMPONENT, channelId: channel.id, guildId: channel.guildId, userId: this.user.id, commandName: undefined, componentMessageId: messageId });
    return this.dispatch(record, channel, { custom_id: customId, component_type: component.type, ...(values ? { values: [...values] } : {}) }, alter);
  }

  private dispatch(record: InteractionRecord, channel: ChannelRecord, data: Record<string, unknown>, alter: (payload: Record<string, unknown>) => Record<string, unknown> = (payload) => payload): InteractionRecord {
    record.payload = alter(interactionObject(this.context.world, record, channel, data));
    this.context.world.sessions.dispatch(interactionCreateEvent(channel.guildId, record.payload));
    return record;
  }

  private channel(id: string): ChannelRecord {
    const { world } = this.context;
    const channel = world.channels.find(id);
    if (!channel) throw new Error(`fake Discord: no channel ${id}`);
    if (channel.guildId && !world.directory.findGuild(channel.guildId)?.members.has(this.user.id)) throw new Error(`fake Discord: ${this.user.username} is not a member of guild ${channel.guildId}`);
    if (channel.type === CHANNEL_TYPE.DM && channel.recipientId !== this.user.id) throw new Error(`fake Discord: DM ${id} is not ${this.user.username}'s`);
    return channel;
  }

  private own(channel: ChannelRecord, messageId: string) {
    const stored = this.context.world.channels.live(channel, messageId);
    if (!stored || stored.authorId !== this.user.id) throw new Error(`fake Discord: message ${messageId} is not ${this.user.username}'s`);
    return stored;
  }

  private render(stored: Parameters<typeof messageObject>[0]): APIMessage {
    return messageObject(stored, this.context.world, { gateway: true, readable: () => true });
  }
}
