/** The platform name of every Slack event: its session keys (`slack:<channel>:<thread ts>`) and send subject. */
export const SLACK = "slack";

/** A `message` or `app_mention` event as the adapter reads it: Slack's fields, typed, absent ones empty. */
export interface SlackMessageEvent {
  readonly type: "message" | "app_mention";
  /** The Events API `event_id`: the same on every delivery of the event. */
  readonly eventId: string;
  readonly channel: string;
  readonly ts: string;
  /** The thread's parent `ts`; `""` for a top-level message. */
  readonly threadTs: string;
  /** `""` when none. */
  readonly subtype: string;
  readonly text: string;
  /** The sender's user id; `""` for a legacy `bot_message`. */
  readonly user: string;
  /** `""` for a person. */
  readonly botId: string;
  /** A legacy `bot_message`'s `username`. */
  readonly username: string;
  /** The message's `files`, as Slack sent them (read by `messageFiles`). */
  readonly files: readonly unknown[];
}

/** Why an Events API payload makes no message event. */
export type EventSkip = "malformed" | "not_a_message";

/**
 * Reads an Events API payload (`event_callback`) into a message event, or says why it is none: not
 * shaped as Slack documents it (`malformed`: no `event_id`, no `event`, a field of the wrong type),
 * or another event type (`not_a_message`). Every string field Slack may leave out reads as `""`, so
 * the rules never see `undefined`; `channel` and `ts` may be empty too, and the gate drops such an
 * event as incomplete, as upstream.
 */
export function readSlackEvent(payload: unknown): SlackMessageEvent | EventSkip {
  if (!isRecord(payload)) return "malformed";
  const { event_id: eventId, event } = payload;
  if (typeof eventId !== "string" || eventId === "" || !isRecord(event)) return "malformed";
  if (event.type !== "message" && event.type !== "app_mention") return typeof event.type === "string" ? "not_a_message" : "malformed";
  const fields = ["channel", "ts", "thread_ts", "subtype", "text", "user", "bot_id", "username"] as const;
  const read: Partial<Record<(typeof fields)[number], string>> = {};
  for (const field of fields) {
    const value = event[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== "string") return "malformed";
    read[field] = value;
  }
  if (event.files !== undefined && !Array.isArray(event.files)) return "malformed";
  return {
    type: event.type,
    eventId,
    channel: read.channel ?? "",
    ts: read.ts ?? "",
    threadTs: read.thread_ts ?? "",
    subtype: read.subtype ?? "",
    text: read.text ?? "",
    user: read.user ?? "",
    botId: read.bot_id ?? "",
    username: read.username ?? "",
    files: (event.files as unknown[] | undefined) ?? [],
  };
}

/** Sent by a bot: a `bot_id`, or the legacy `bot_message` subtype. */
export function isBotEvent(event: SlackMessageEvent): boolean {
  return event.botId !== "" || event.subtype === "bot_message";
}

/** The sender's id as the agent sees it: `user`, else `bot_id` (§1.5). */
export function senderIdOf(event: SlackMessageEvent): string {
  return event.user !== "" ? event.user : event.botId;
}

/** The thread an answer goes to, and the conversation's key: `thread_ts`, else the message's own `ts`. */
export function replyThreadOf(event: SlackMessageEvent): string {
  return event.threadTs !== "" ? event.threadTs : event.ts;
}

/** The bot-turn counters' key (§3.3 step 3): the thread, or `<channel>:<ts>` for a top-level message, so those never add up. */
export function botTurnKeyOf(event: SlackMessageEvent): string {
  return event.threadTs !== "" ? event.threadTs : `${event.channel}:${event.ts}`;
}

export function isDmChannel(channel: string): boolean {
  return channel.startsWith("D");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
