import type { EventPublisher } from "./events.js";
import type { FileStore } from "./fileStore.js";
import type { MessageStore, SlackMessage } from "./messageStore.js";
import type { Params } from "./requestParams.js";
import { SlackApiError } from "./slackApiError.js";
import type { SocketModeServer } from "./socketMode.js";
import type { UploadTickets } from "./uploadTickets.js";
import type { Conversation, SlackBot, Workspace } from "./workspace.js";

/** An assistant thread's status and suggested prompts, as the bot last set them. */
export interface AssistantThreadState {
  /** Every status set, oldest first ("" clears it). */
  readonly statuses: string[];
  prompts: { title: string | undefined; prompts: { title: string; message: string }[] } | undefined;
}

/** A message only one person sees (`chat.postEphemeral`): Slack keeps no history of it and sends no event. */
export interface EphemeralMessage {
  readonly channel: string;
  readonly user: string;
  readonly text: string;
  readonly blocks: unknown[] | undefined;
  readonly thread_ts: string | undefined;
  readonly message_ts: string;
}

/** What the Web API methods act on. */
export interface SlackContext {
  readonly workspace: Workspace;
  readonly store: MessageStore;
  readonly files: FileStore;
  readonly events: EventPublisher;
  readonly socket: SocketModeServer;
  /** This app's bot. */
  readonly bot: SlackBot;
  readonly botScopes: ReadonlySet<string>;
  readonly customEmoji: Set<string>;
  /** By `<channel>:<thread_ts>`. */
  readonly assistantThreads: Map<string, AssistantThreadState>;
  /** Every `chat.postEphemeral`, in order. */
  readonly ephemerals: EphemeralMessage[];
  /** Whether the bot's own posts, edits and deletes come back as events (Slack sends them). */
  readonly echoBotMessages: boolean;
  /** Uploads opened by `files.getUploadURLExternal`, their bytes once POSTed. */
  readonly uploads: UploadTickets;
  /** The largest `length` an upload may announce. */
  readonly uploadLimitBytes: number;
  /** Whether `files.completeUploadExternal` answers whole file objects with `shares` (else `{id, title}`). */
  readonly completeUploadShares: boolean;
  readonly now: () => number;
}

/** A Web API method: its name, the token it takes, whether it reads a JSON body, the scope it needs. */
export interface WebMethod {
  readonly name: string;
  readonly token: "bot" | "app";
  /** Slack ignores a JSON body for the read methods that take only form or query arguments. */
  readonly json: boolean;
  /** Only over POST (`apps.connections.open`: `insecure_request` otherwise). */
  readonly postOnly?: boolean;
  /** The bot scope the call needs, or undefined when none. */
  scope(params: Params): string | undefined;
  handle(params: Params): Record<string, unknown>;
}

/**
 * The conversation a call names, as the bot may use it: a private channel or DM it is not in does not
 * exist for it (`channel_not_found`); a public one it is not in may be read but not written
 * (`not_in_channel`); an archived one takes no writes (`is_archived`).
 */
export function botConversation(context: SlackContext, ref: string | undefined, use: "write" | "history" | "info"): Conversation {
  if (ref === undefined) throw new SlackApiError("channel_not_found");
  const conversation = context.workspace.find(ref);
  const member = conversation.members.has(context.bot.user.id);
  if (!member && conversation.kind !== "public") throw new SlackApiError("channel_not_found");
  if (!member && use !== "info") throw new SlackApiError("not_in_channel");
  if (conversation.archived && use === "write") throw new SlackApiError("is_archived");
  return conversation;
}

/** The scope for reading a conversation of this kind (`channels:`, `groups:` or `im:` + `read`/`history`). */
export function conversationScope(context: SlackContext, ref: string | undefined, what: "read" | "history"): string | undefined {
  const conversation = ref === undefined ? undefined : context.workspace.conversation(ref);
  const prefix = conversation?.kind === "private" ? "groups" : conversation?.kind === "im" ? "im" : "channels";
  return `${prefix}:${what}`;
}

/** A message this app's bot posts: its user, bot and app ids, and bot profile, as Slack fills them in. */
export function botMessage(context: SlackContext, fields: Pick<SlackMessage, "text" | "ts"> & Partial<SlackMessage>): SlackMessage {
  const { bot, workspace } = context;
  return {
    type: "message",
    user: bot.user.id,
    bot_id: bot.botId,
    app_id: bot.appId,
    bot_profile: { id: bot.botId, app_id: bot.appId, name: bot.user.name, deleted: false, team_id: workspace.team.id },
    team: workspace.team.id,
    ...fields,
  };
}
