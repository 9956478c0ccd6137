import type { SlackMessage } from "./messageStore.js";
import type { SocketModeServer } from "./socketMode.js";
import type { Conversation, IdMaker } from "./workspace.js";

export interface EventContext {
  readonly team: { readonly id: string; readonly domain: string };
  readonly appId: string;
  readonly botUserId: string;
  readonly ids: IdMaker;
  readonly socket: SocketModeServer;
  readonly now: () => number;
}

/** A published event: its `event_id` (what a retry keeps) and the event itself. */
export interface PublishedEvent {
  readonly event_id: string;
  readonly event: Record<string, unknown>;
}

/**
 * Events API events as Slack sends them to this app, wrapped in an `event_callback` and sent over Socket
 * Mode — only from conversations the app's bot is in, as Slack delivers `message.channels`,
 * `message.groups`, `message.im` and `app_mention`.
 */
export class EventPublisher {
  constructor(private readonly context: EventContext) {}

  /** A `message` event for a new message (a user's, another bot's, or this bot's own). */
  message(conversation: Conversation, message: SlackMessage): PublishedEvent | undefined {
    return this.publish(conversation, { ...structuredClone(message), channel: conversation.id, event_ts: message.ts, channel_type: channelType(conversation) });
  }

  /** The separate `app_mention` event Slack sends beside `message` when a channel message mentions the bot (never in a DM). */
  appMention(conversation: Conversation, message: SlackMessage): PublishedEvent | undefined {
    if (conversation.kind === "im") return undefined;
    const { subtype: _subtype, type: _type, ...rest } = structuredClone(message);
    return this.publish(conversation, { type: "app_mention", ...rest, channel: conversation.id, event_ts: message.ts });
  }

  /** `message` with subtype `message_changed`: the message as it is now and as it was. */
  messageChanged(conversation: Conversation, now: SlackMessage, before: SlackMessage, eventTs: string): PublishedEvent | undefined {
    return this.publish(conversation, {
      type: "message",
      subtype: "message_changed",
      message: structuredClone(now),
      previous_message: structuredClone(before),
      channel: conversation.id,
      hidden: true,
      ts: eventTs,
      event_ts: eventTs,
      channel_type: channelType(conversation),
    });
  }

  /** `message` with subtype `message_deleted`. */
  messageDeleted(conversation: Conversation, before: SlackMessage, eventTs: string): PublishedEvent | undefined {
    return this.publish(conversation, {
      type: "message",
      subtype: "message_deleted",
      previous_message: structuredClone(before),
      channel: conversation.id,
      hidden: true,
      deleted_ts: before.ts,
      ts: eventTs,
      event_ts: eventTs,
      channel_type: channelType(conversation),
    });
  }

  private publish(conversation: Conversation, event: Record<string, unknown>): PublishedEvent | undefined {
    if (!conversation.members.has(this.context.botUserId)) return undefined;
    const { team, appId, botUserId, ids, socket, now } = this.context;
    const eventId = ids.next("Ev");
    const payload = {
      token: "fake-verification-token",
      team_id: team.id,
      context_team_id: team.id,
      context_enterprise_id: null,
      api_app_id: appId,
      event,
      type: "event_callback",
      event_id: eventId,
      event_time: Math.floor(now() / 1000),
      authorizations: [{ enterprise_id: null, team_id: team.id, user_id: botUserId, is_bot: true, is_enterprise_install: false }],
      is_ext_shared_channel: false,
      event_context: `4-fake-${eventId}`,
    };
    socket.deliver("events_api", payload, { acceptsResponsePayload: false, eventId });
    return { event_id: eventId, event };
  }
}

export function channelType(conversation: Conversation): "channel" | "group" | "im" {
  return conversation.kind === "public" ? "channel" : conversation.kind === "private" ? "group" : "im";
}
