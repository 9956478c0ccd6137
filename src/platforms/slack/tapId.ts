import { CHANNEL_ID, MESSAGE_TS, USER_ID } from "./slackIds.js";

/** What `chat.postEphemeral` needs to show the person who tapped a notice where they tapped. */
export interface TapTarget {
  readonly channel: string;
  readonly user: string;
  /** The thread the button's message is in; `""` for a top-level message (the notice goes beside it). */
  readonly threadTs: string;
}

/**
 * A Slack tap's `ButtonTap.id`: `<channel>:<user>:<thread ts>` (the ts empty for a top-level
 * message). Slack has no handle to answer a button with but `response_url`, a secret that edits the
 * message; the ephemeral notice needs only these three ids, none secret, so any edge can answer.
 */
export function tapIdOf(target: TapTarget): string {
  return `${target.channel}:${target.user}:${target.threadTs}`;
}

/** The target a tap id names, or undefined when `id` is no Slack tap id. */
export function readTapId(id: string): TapTarget | undefined {
  const parts = id.split(":");
  if (parts.length !== 3) return undefined;
  const [channel, user, threadTs] = parts as [string, string, string];
  if (!CHANNEL_ID.test(channel) || !USER_ID.test(user) || (threadTs !== "" && !MESSAGE_TS.test(threadTs))) return undefined;
  return { channel, user, threadTs };
}
