import { CHOICE_DATA } from "./choiceBlocks.js";
import { CHANNEL_ID, MESSAGE_TS, USER_ID } from "./slackIds.js";

/** A button tapped on a message, as the adapter reads a `block_actions` payload: Slack's fields, checked. */
export interface BlockAction {
  /** Slack's id of this one interaction (unique per tap). */
  readonly triggerId: string;
  /** Who tapped. */
  readonly user: string;
  /** The conversation the button's message is in. */
  readonly channel: string;
  /** The button's message. */
  readonly messageTs: string;
  /** The thread that message is in; `""` for a top-level message. */
  readonly threadTs: string;
  /** When the button was tapped (`action_ts`); `""` when Slack sent none. */
  readonly actionTs: string;
  /** The tapped button's `action_id`: the choice's data, checked against `CHOICE_DATA`. */
  readonly actionId: string;
}

/**
 * Why an `interactive` payload makes no tap: another interaction (`not_block_actions`: a shortcut,
 * a modal's submission), a button not on a message (`not_a_message`: in a modal or App Home), on an
 * ephemeral message (`ephemeral`: never one of the broker's), not shaped as Slack documents it
 * (`malformed`), without an action (`no_action`), or an `action_id` that is no choice's data
 * (`bad_action_id`: not a string, longer than 64 bytes, other characters).
 */
export type BlockActionSkip = "not_block_actions" | "not_a_message" | "ephemeral" | "malformed" | "no_action" | "bad_action_id";

/** Slack's `trigger_id`: digits, dots and hex, well under this. */
const TRIGGER_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Reads a Socket Mode `interactive` payload into the first action of a `block_actions` tap on a
 * message, or says why it is none. Nothing in it is trusted: every id must look like Slack's, the
 * thread is `container.thread_ts` (else `message.thread_ts`), and the data is bounded as
 * `OutboundChoice.data` is, since only the broker's own buttons are answered.
 */
export function readBlockActions(payload: unknown): BlockAction | BlockActionSkip {
  if (!isRecord(payload)) return "malformed";
  if (payload.type !== "block_actions") return typeof payload.type === "string" ? "not_block_actions" : "malformed";
  const { container, user, message, actions } = payload;
  if (!isRecord(container)) return "malformed";
  if (container.type !== "message") return typeof container.type === "string" ? "not_a_message" : "malformed";
  if (container.is_ephemeral === true) return "ephemeral";
  const channel = container.channel_id ?? (isRecord(payload.channel) ? payload.channel.id : undefined);
  const threadTs = container.thread_ts ?? (isRecord(message) ? message.thread_ts : undefined) ?? "";
  const userId = isRecord(user) ? user.id : undefined;
  const { trigger_id: triggerId } = payload;
  if (!matches(channel, CHANNEL_ID) || !matches(userId, USER_ID) || !matches(container.message_ts, MESSAGE_TS) || !matches(triggerId, TRIGGER_ID)) return "malformed";
  if (threadTs !== "" && !matches(threadTs, MESSAGE_TS)) return "malformed";
  if (!Array.isArray(actions) || actions.length === 0 || !isRecord(actions[0])) return "no_action";
  const { action_id: actionId, action_ts: actionTs } = actions[0];
  if (!matches(actionId, CHOICE_DATA)) return "bad_action_id";
  return { triggerId, user: userId, channel, messageTs: container.message_ts, threadTs, actionTs: matches(actionTs, MESSAGE_TS) ? actionTs : "", actionId };
}

function matches(value: unknown, pattern: RegExp): value is string {
  return typeof value === "string" && pattern.test(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
