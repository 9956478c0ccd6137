import type { PlatformCapabilities } from "../../../operators/ingress/frames/helloFrame.js";
import type { SlackConfig } from "../../config/sections/slack.js";
import { nativeCapabilities } from "../nativeCapabilities.js";

/** Upstream's limit on a Slack reply, in characters, counted before the mrkdwn conversion (§3.6). */
export const SLACK_MESSAGE_LIMIT = 4000;

/**
 * What Slack can do, as a gateway hello would state it, fixed by `[slack]`: every call answered
 * (posts, edits and deletes acked with the message's `ts`), reactions by short name, edits and
 * deletes of the bot's own messages, 4000 characters a message. Text turns stream by editing one
 * message when `streaming` is on, opening with the placeholder, as upstream. No "typing…": Slack
 * offers bots none outside assistant mode (its status line), which is not built. Buttons: Block
 * Kit buttons under a message, taps over Socket Mode, answered with an ephemeral notice. Files,
 * uploaded into the conversation.
 */
export function slackCapabilities(config: Pick<SlackConfig, "streaming">): PlatformCapabilities {
  return nativeCapabilities({ messageLimit: SLACK_MESSAGE_LIMIT, streaming: config.streaming, typing: false, buttons: true, notices: true, outboundFiles: true });
}
