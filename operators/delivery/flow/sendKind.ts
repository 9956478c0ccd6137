import type { OutboundCommand } from "../outboundMessage.js";

/** What a send does on the platform: what rate limits and metrics count it as. */
export const SEND_KINDS = ["message", "edit", "delete", "reaction", "typing", "tap"] as const;
export type SendKind = (typeof SEND_KINDS)[number];

/** A send's kind, by its command: a plain send and a new topic are messages. */
export function sendKind(command: OutboundCommand | undefined): SendKind {
  switch (command) {
    case "edit_message":
      return "edit";
    case "delete_message":
      return "delete";
    case "add_reaction":
    case "remove_reaction":
      return "reaction";
    // A chat action, not a message: Telegram's message limits do not count it.
    case "typing":
      return "typing";
    // The answer to a tap on a button (a callback query's, an interaction's): no chat message.
    case "answer_tap":
      return "tap";
    // A message one person sees: a message all the same.
    case "notice":
      return "message";
    default:
      return "message";
  }
}
