import type { OutboundMessage } from "../../../operators/delivery/outboundMessage.js";

/**
 * Where a reply goes, and where the message a command acts on lives. A conversation's channel is
 * `{ id: parent channel, thread_id: thread }` (a DM: `{ id }`). New messages and "typing…" go to
 * the thread, else the channel. A message acted on (edit, delete, reactions) is in the thread —
 * except the thread's starter: a thread opened from a message has that message's id, and the
 * message itself stays in the parent channel.
 */
export function conversationChannel(message: Pick<OutboundMessage, "channel">): string {
  return threadOf(message) ?? message.channel.id;
}

/** The channels to try for the message `messageId`, likeliest first (a forum post's starter is in its thread, not the forum). */
export function targetChannels(message: Pick<OutboundMessage, "channel">, messageId: string): readonly string[] {
  const thread = threadOf(message);
  if (thread === undefined) return [message.channel.id];
  return messageId === thread && message.channel.id !== thread ? [message.channel.id, thread] : [thread];
}

function threadOf(message: Pick<OutboundMessage, "channel">): string | undefined {
  const thread = message.channel.thread_id;
  return thread === undefined || thread === "" ? undefined : thread;
}
