import { compareTs, type StoredMessage } from "./messageStore.js";
import { booleanArg, integerArg, stringArg, TS } from "./paramReaders.js";
import { botConversation, conversationScope, type SlackContext, type WebMethod } from "./slackContext.js";
import { SlackApiError } from "./slackApiError.js";
import type { Conversation } from "./workspace.js";

/** `users.info`, `conversations.info`, `conversations.replies`, `files.info`: form or query arguments only, as Slack reads them. */
export function readMethods(context: SlackContext): WebMethod[] {
  const { workspace, store, files } = context;
  return [
    {
      name: "users.info",
      token: "bot",
      json: false,
      scope: () => "users:read",
      handle: (params) => {
        booleanArg(params, "include_locale");
        const user = workspace.user(stringArg(params, "user") ?? "");
        if (!user) throw new SlackApiError("user_not_found");
        return { user: structuredClone(user) };
      },
    },
    {
      name: "conversations.info",
      token: "bot",
      json: false,
      scope: (params) => conversationScope(context, stringArg(params, "channel"), "read"),
      handle: (params) => {
        const withMembers = booleanArg(params, "include_num_members") ?? false;
        booleanArg(params, "include_locale");
        const conversation = botConversation(context, stringArg(params, "channel"), "info");
        return { channel: { ...describe(conversation, context.bot.user.id), ...(withMembers && conversation.kind !== "im" ? { num_members: conversation.members.size } : {}) } };
      },
    },
    {
      name: "conversations.replies",
      token: "bot",
      json: false,
      scope: (params) => conversationScope(context, stringArg(params, "channel"), "history"),
      handle: (params) => {
        const conversation = botConversation(context, stringArg(params, "channel"), "history");
        const ts = stringArg(params, "ts");
        const thread = ts === undefined ? [] : store.thread(conversation.id, ts);
        if (thread.length === 0) throw new SlackApiError("thread_not_found");
        const requested = integerArg(params, "limit", { min: 0 }) ?? 0;
        const limit = requested === 0 ? 1000 : Math.min(requested, 1000);
        const inclusive = booleanArg(params, "inclusive") ?? false;
        const oldest = timestampArg(stringArg(params, "oldest"), "invalid_ts_oldest");
        const latest = timestampArg(stringArg(params, "latest"), "invalid_ts_latest");
        const after = cursorTs(stringArg(params, "cursor"));
        const inRange = thread.filter(({ message: { ts: at } }) => {
          if (oldest !== undefined && (inclusive ? compareTs(at, oldest) < 0 : compareTs(at, oldest) <= 0)) return false;
          if (latest !== undefined && (inclusive ? compareTs(at, latest) > 0 : compareTs(at, latest) >= 0)) return false;
          return after === undefined || compareTs(at, after) >= 0;
        });
        const page = inRange.slice(0, limit);
        const next = inRange[limit];
        return {
          messages: page.map(withReactions),
          has_more: next !== undefined,
          ...(next !== undefined ? { response_metadata: { next_cursor: Buffer.from(`next_ts:${next.message.ts}`).toString("base64") } } : {}),
        };
      },
    },
    {
      name: "files.info",
      token: "bot",
      json: false,
      scope: () => "files:read",
      handle: (params) => {
        const file = files.get(stringArg(params, "file") ?? "");
        if (!file) throw new SlackApiError("file_not_found");
        return { file: structuredClone(file), comments: [], response_metadata: { next_cursor: "" } };
      },
    },
  ];
}

function timestampArg(value: string | undefined, error: string): string | undefined {
  if (value !== undefined && !TS.test(value) && !/^\d+$/.test(value)) throw new SlackApiError(error);
  return value;
}

function cursorTs(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const match = /^next_ts:(\d+\.\d+)$/.exec(Buffer.from(cursor, "base64").toString("utf8"));
  if (!match) throw new SlackApiError("invalid_cursor");
  return match[1];
}

/** A message as history methods return it, with `reactions` (`name`, `users`, `count`) when it has any. */
function withReactions(stored: StoredMessage): Record<string, unknown> {
  const reactions = [...stored.reactions].map(([name, users]) => ({ name, users: [...users], count: users.length }));
  return { ...structuredClone(stored.message), ...(reactions.length > 0 ? { reactions } : {}) };
}

/** A conversation object as `conversations.info` gives it. */
export function describe(conversation: Conversation, botUserId: string): Record<string, unknown> {
  if (conversation.kind === "im") {
    return { id: conversation.id, created: conversation.created, is_im: true, is_org_shared: false, user: conversation.imUser, is_user_deleted: false, priority: 0 };
  }
  return {
    id: conversation.id,
    name: conversation.name,
    name_normalized: conversation.name,
    is_channel: true,
    is_group: false,
    is_im: false,
    is_mpim: false,
    is_private: conversation.kind === "private",
    created: conversation.created,
    creator: conversation.creator,
    is_archived: conversation.archived,
    is_general: conversation.name === "general",
    is_shared: false,
    is_ext_shared: false,
    is_org_shared: false,
    is_member: conversation.members.has(botUserId),
    topic: { value: "", creator: "", last_set: 0 },
    purpose: { value: "", creator: "", last_set: 0 },
  };
}
