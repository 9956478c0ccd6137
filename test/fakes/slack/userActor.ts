import { randomUUID } from "node:crypto";
import type { EventPublisher, PublishedEvent } from "./events.js";
import type { FileStore, NewFile, SlackFile } from "./fileStore.js";
import type { MessageStore, SlackMessage } from "./messageStore.js";
import type { SocketModeServer } from "./socketMode.js";
import type { Conversation, SlackBot, SlackUser, Workspace } from "./workspace.js";

export interface ActorContext {
  readonly workspace: Workspace;
  readonly store: MessageStore;
  readonly files: FileStore;
  readonly events: EventPublisher;
  readonly socket: SocketModeServer;
  /** This app's bot (whose mentions raise `app_mention`). */
  readonly bot: SlackBot;
  readonly now: () => number;
}

export interface UserMessageOptions {
  /** The thread to reply in: its parent's `ts` (or any reply's, as a client sends it). */
  readonly thread_ts?: string;
  /** A message subtype (`me_message`, `thread_broadcast`, `channel_join`…); for a bot, `bot_message` gives the legacy shape (no `user`, a `username`). */
  readonly subtype?: string;
}

/** What a user's action made: the message as stored and the events Slack sent the app for it. */
export interface UserAction {
  readonly ts: string;
  readonly message: SlackMessage;
  /** In order: `message`, then `app_mention` when the bot is mentioned in a channel. None when the bot is not in the conversation. */
  readonly events: readonly PublishedEvent[];
}

export type SharedFile = NewFile & { readonly bytes: Uint8Array | string };

/**
 * One user's (or another bot's) side of the workspace: each call keeps what they did and sends the app
 * the events Slack would. A typed `@name` of a known user or bot becomes `<@U…>`, as Slack's clients
 * send mentions; a user's message carries the `rich_text` block a client adds.
 */
export class SlackActor {
  constructor(
    readonly user: SlackUser,
    private readonly asBot: SlackBot | undefined,
    private readonly context: ActorContext,
  ) {}

  /** A message in a conversation (a channel id or name, or a DM), optionally in a thread. */
  message(channel: string, text: string, options: UserMessageOptions = {}): UserAction {
    return this.post(this.conversation(channel), { text: this.withMentions(text) }, options);
  }

  /** A file shared with an optional comment: a `message` with subtype `file_share` and the file in `files`. */
  shareFile(channel: string, file: SharedFile, options: { text?: string; thread_ts?: string } = {}): UserAction & { file: SlackFile } {
    const conversation = this.conversation(channel);
    const shared = this.context.files.add(file.bytes, { ...file, user: this.user.id, isPublic: conversation.kind === "public", created: Math.floor(this.context.now() / 1000) });
    const action = this.post(conversation, { text: this.withMentions(options.text ?? ""), files: [structuredClone(shared)], upload: false }, { subtype: "file_share", ...(options.thread_ts ? { thread_ts: options.thread_ts } : {}) });
    return { ...action, file: shared };
  }

  /** The user edits their message: `message_changed` with the new text and `edited`. */
  edit(channel: string, ts: string, text: string): UserAction {
    const conversation = this.conversation(channel);
    const stored = this.ownMessage(conversation, ts);
    const before = structuredClone(stored.message);
    const editTs = this.context.store.nextTs();
    stored.earlierTexts.push(stored.message.text);
    const newText = this.withMentions(text);
    Object.assign(stored.message, { text: newText, edited: { user: this.user.id, ts: editTs }, ...(this.asBot ? {} : { blocks: richText(newText) }) });
    const changed = this.context.events.messageChanged(conversation, stored.message, before, editTs);
    return { ts, message: stored.message, events: changed ? [changed] : [] };
  }

  /** The user deletes their message: `message_deleted`. */
  delete(channel: string, ts: string): UserAction {
    const conversation = this.conversation(channel);
    const stored = this.ownMessage(conversation, ts);
    stored.deleted = true;
    const deleted = this.context.events.messageDeleted(conversation, stored.message, this.context.store.nextTs());
    return { ts, message: stored.message, events: deleted ? [deleted] : [] };
  }

  /** A slash command typed in a conversation: a `slash_commands` envelope (which accepts a response payload; Slack does not retry it). */
  slashCommand(channel: string, command: string, text = ""): Record<string, unknown> {
    if (!/^\/[a-z0-9_-]+$/i.test(command)) throw new Error(`fake Slack: ${JSON.stringify(command)} is not a slash command`);
    const conversation = this.conversation(channel);
    const { workspace, bot, socket } = this.context;
    const payload = {
      token: "fake-verification-token",
      team_id: workspace.team.id,
      team_domain: workspace.team.domain,
      channel_id: conversation.id,
      channel_name: conversation.kind === "im" ? "directmessage" : conversation.name,
      user_id: this.user.id,
      user_name: this.user.name,
      command,
      text,
      api_app_id: bot.appId,
      is_enterprise_install: "false",
      response_url: `https://hooks.slack.com/commands/${workspace.team.id}/fake/${randomUUID()}`,
      trigger_id: `fake.${randomUUID()}`,
    };
    socket.deliver("slash_commands", payload, { acceptsResponsePayload: true });
    return payload;
  }

  /**
   * The user clicks a button (by `action_id`) on a message this app's bot posted (Slack sends a tap
   * to the app whose message it is): an `interactive` `block_actions` envelope, shaped as Slack's. It
   * is sent once; not acked within the ack timeout (Slack's 3 s, when Slack shows the person an
   * error), it ends in `socket.undelivered`. A button the message does not show is refused.
   */
  press(channel: string, ts: string, actionId: string): Record<string, unknown> {
    const conversation = this.conversation(channel);
    const stored = this.context.store.live(conversation.id, ts);
    const { workspace, bot, socket, now } = this.context;
    if (!stored || stored.message.app_id !== bot.appId) throw new Error(`fake Slack: no message ${ts} of this app's bot in ${conversation.id}`);
    const found = findButton(stored.message.blocks ?? [], actionId);
    if (!found) throw new Error(`fake Slack: message ${ts} in ${conversation.id} has no button with action_id ${JSON.stringify(actionId)}`);
    const { type, action_id, text, value, style } = found.button;
    const payload = {
      type: "block_actions",
      user: { id: this.user.id, username: this.user.name, name: this.user.name, team_id: workspace.team.id },
      api_app_id: bot.appId,
      token: "fake-verification-token",
      container: { type: "message", message_ts: ts, channel_id: conversation.id, is_ephemeral: false, ...(stored.message.thread_ts ? { thread_ts: stored.message.thread_ts } : {}) },
      trigger_id: `${Math.floor(now() / 1000)}.${workspace.team.id.slice(1)}.${randomUUID().replace(/-/g, "")}`,
      team: { id: workspace.team.id, domain: workspace.team.domain },
      enterprise: null,
      is_enterprise_install: false,
      channel: { id: conversation.id, name: conversation.name ?? "directmessage" },
      message: structuredClone(stored.message),
      state: { values: {} },
      response_url: `https://hooks.slack.com/actions/${workspace.team.id}/fake/${randomUUID()}`,
      actions: [{ type, action_id, block_id: found.blockId, text, ...(value === undefined ? {} : { value }), ...(style === undefined ? {} : { style }), action_ts: (now() / 1000).toFixed(6) }],
    };
    socket.deliver("interactive", payload, { acceptsResponsePayload: false });
    return payload;
  }

  private post(conversation: Conversation, content: Pick<SlackMessage, "text"> & Partial<SlackMessage>, options: UserMessageOptions): UserAction {
    const { store, events, bot, workspace } = this.context;
    if (options.thread_ts !== undefined && !store.live(conversation.id, options.thread_ts)) throw new Error(`fake Slack: no message ${options.thread_ts} in ${conversation.id} to reply to`);
    const ts = store.nextTs();
    const message: SlackMessage = { type: "message", ...this.senderFields(options.subtype), ...content, ts, team: workspace.team.id, ...(options.thread_ts ? { thread_ts: options.thread_ts } : {}) };
    if (!this.asBot) Object.assign(message, { client_msg_id: randomUUID(), blocks: richText(message.text) });
    store.add(conversation.id, message);
    const published = [events.message(conversation, message)];
    if (mentions(message.text, bot.user.id)) published.push(events.appMention(conversation, message));
    return { ts, message, events: published.filter((event): event is PublishedEvent => event !== undefined) };
  }

  private senderFields(subtype: string | undefined): Partial<SlackMessage> {
    const bot = this.asBot;
    if (!bot) return subtype ? { subtype, user: this.user.id } : { user: this.user.id };
    if (subtype === "bot_message") return { subtype, bot_id: bot.botId, username: this.user.name };
    const profile = { id: bot.botId, app_id: bot.appId, name: this.user.name, deleted: false, team_id: this.context.workspace.team.id };
    return { ...(subtype ? { subtype } : {}), user: this.user.id, bot_id: bot.botId, app_id: bot.appId, bot_profile: profile };
  }

  private conversation(ref: string): Conversation {
    const conversation = this.context.workspace.find(ref);
    if (!conversation.members.has(this.user.id)) throw new Error(`fake Slack: ${this.user.name} is not in ${conversation.name ?? conversation.id}`);
    return conversation;
  }

  private ownMessage(conversation: Conversation, ts: string) {
    const stored = this.context.store.live(conversation.id, ts);
    const mine = stored && (stored.message.user === this.user.id || (stored.message.user === undefined && stored.message.bot_id === this.asBot?.botId));
    if (!stored || !mine) {
      throw new Error(`fake Slack: message ${ts} in ${conversation.id} is not ${this.user.name}'s`);
    }
    return stored;
  }

  /** `@name` of a known user or bot → `<@U…>`; anything else stays as typed. */
  private withMentions(text: string): string {
    return text.replace(/(^|[\s(])@([A-Za-z0-9._-]+)/g, (whole, before: string, name: string) => {
      const user = this.context.workspace.userNamed(name);
      return user ? `${before}<@${user.id}>` : whole;
    });
  }
}

/** Whether text mentions a user: `<@U…>` or the labelled `<@U…|name>`. */
export function mentions(text: string, userId: string): boolean {
  return text.includes(`<@${userId}>`) || text.includes(`<@${userId}|`);
}

/** The `rich_text` block Slack's clients attach to a typed message: text and user elements. */
function richText(text: string): unknown[] {
  if (text === "") return [];
  const elements = text
    .split(/(<@[UW][A-Z0-9]+(?:\|[^>]*)?>)/)
    .filter((part) => part !== "")
    .map((part) => {
      const user = /^<@([UW][A-Z0-9]+)/.exec(part);
      return user ? { type: "user", user_id: user[1] } : { type: "text", text: part };
    });
  return [{ type: "rich_text", block_id: text.length.toString(36).padStart(4, "x"), elements: [{ type: "rich_text_section", elements }] }];
}

function findButton(blocks: unknown[], actionId: string): { button: Record<string, unknown>; blockId: string } | undefined {
  for (const block of blocks as { block_id?: string; elements?: unknown[]; accessory?: unknown }[]) {
    const candidates = [...(block.elements ?? []), ...(block.accessory ? [block.accessory] : [])] as Record<string, unknown>[];
    const button = candidates.find((element) => element.action_id === actionId);
    if (button) return { button, blockId: block.block_id ?? "fake-block" };
  }
  return undefined;
}
