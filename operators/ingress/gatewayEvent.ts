/**
 * An `openab.gateway.event.v1` frame as turnstream carries it through the pipeline: the gateway's
 * field names, validated. Unknown wire fields are dropped at the edge.
 */
export interface GatewayEvent {
  readonly schema: "openab.gateway.event.v1";
  /** Correlation id; becomes the reply's `reply_to`. Not a platform message id. */
  readonly event_id: string;
  /** ISO-8601, or `""` when the gateway sent none. */
  readonly timestamp: string;
  readonly platform: string;
  readonly channel: GatewayChannel;
  readonly sender: GatewaySender;
  readonly content: GatewayContent;
  /** Usernames mentioned in the message. */
  readonly mentions: readonly string[];
  /** Platform message id; may be `""`. */
  readonly message_id: string;
  /** An unsolicited event (mail, webhook, alert) that goes through triage. */
  readonly proactive: boolean;
  /**
   * Set by the edge, never read from the wire: a group message that did not mention the bot, kept
   * as group history for the conversation's next turn (`[inbound] history_limit`), never a turn.
   */
  readonly history?: true;
  /**
   * Set by a native adapter (Discord, Slack), never read from the wire: another bot takes part in
   * this conversation, so a text reply is sent once rather than streamed in edits (upstream's
   * `use_streaming(!other_bot_present)`: two bots editing placeholders in one thread interfere).
   */
  readonly other_bot_present?: true;
  /**
   * Set by turnstream's scheduler (`[cron]`), never read from the wire: this event is a cron job's
   * firing. Its `channel.thread_id` is then the job's own lane (`cronLane`), so a job's firings
   * run one at a time and apart from the conversation they speak in; the real place is here.
   */
  readonly cron?: CronFiring;
  /**
   * Set by the broker's own sources, never read from the wire: a cron job or a webhook made this
   * event, not a platform, so its replies answer no event (`reply_to` `""`, as the protocol has a
   * cron turn's). Absent: a platform's or a gateway's event.
   */
  readonly origin?: "cron" | "webhook";
  /**
   * Set by a native adapter, never read from the wire: a tap on one of the broker's buttons (a
   * question asked in the chat). `sender` is who tapped, `channel` where the button's message is,
   * `message_id` that message, `content.text` `""`. Never a turn: it answers a question or is
   * answered itself (`answer_tap`).
   */
  readonly tap?: ButtonTap;
}

/** A tap on a button, as a native adapter hands it on. */
export interface ButtonTap {
  /**
   * The adapter's handle to answer the tap with (`answer_tap`'s `reply_to`): Telegram's callback
   * query id, Discord's interaction, Slack's action. Opaque to the broker; never logged.
   */
  readonly id: string;
  /** The tapped button's `OutboundChoice.data`, untrusted (anyone can forge a tap's data). */
  readonly data: string;
}

/** What a cron job's firing carries besides the event: where it speaks, and which job and minute it is. */
export interface CronFiring {
  /** The job's stable key (`cronJobKey`): its usercron `id`, or a digest of what it does. */
  readonly job: string;
  /** The scheduled minute, ISO-8601 UTC (`2026-12-06T09:00:00.000Z`). */
  readonly minute: string;
  /** The job's `thread_id`: the conversation it joins; absent, each firing opens a thread of its own (not when proactive). */
  readonly thread?: string;
  /** Fired late by `[cron] catch_up = "last"` for a minute no process was up to fire. */
  readonly catch_up?: true;
}

export interface GatewayChannel {
  readonly id: string;
  /** `dm`, `group`, `supergroup`, … (free text). */
  readonly type: string;
  readonly thread_id?: string | null;
}

export interface GatewaySender {
  readonly id: string;
  readonly name: string;
  readonly display_name: string;
  readonly is_bot: boolean;
}

export interface GatewayContent {
  readonly type: string;
  readonly text: string;
  readonly attachments?: readonly GatewayAttachment[];
}

export interface GatewayAttachment {
  /**
   * `image`, `text_file`, `audio` (the gateway's), or `file`: any other document, which the native
   * adapters fetch (up to `MAX_DOCUMENT_BYTES`) and the prompt embeds as a `resource` block when the
   * agent takes them. Other types are carried and skipped.
   */
  readonly type: string;
  readonly filename: string;
  readonly mime_type: string;
  /** Base64 bytes; `""` when `path` is used. */
  readonly data: string;
  readonly size: number;
  readonly path?: string | null;
  /** Present when the gateway rejected or truncated the attachment: `"<category>: <detail>"`. */
  readonly status?: string | null;
  /** An audio attachment's transcript, set by the broker's `[stt]` (never read from the wire). */
  readonly transcript?: string;
}
