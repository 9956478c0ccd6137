import type { PlatformCapabilities } from "../../../operators/ingress/frames/helloFrame.js";
import { nativeCapabilities } from "../nativeCapabilities.js";

/** Discord's limit on a message's content, in characters. */
export const DISCORD_MESSAGE_LIMIT = 2000;

/**
 * What Discord can do, as a gateway hello would state it: every call answered (sends, edits and
 * deletes acked with message ids), Unicode reactions on the triggering message, edits and deletes
 * of the bot's own messages, "typing…" while a turn runs, 2000 characters a message. Text turns
 * stream by editing one message (OpenAB streams on Discord), opening with the `…` placeholder.
 * Messages carry a row of buttons, whose taps come back as interactions, and files, uploaded with
 * the message.
 */
export function discordCapabilities(): PlatformCapabilities {
  return nativeCapabilities({ messageLimit: DISCORD_MESSAGE_LIMIT, streaming: true, typing: true, buttons: true, outboundFiles: true });
}
