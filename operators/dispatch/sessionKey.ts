import type { GatewayEvent } from "../ingress/gatewayEvent.js";
import { threadIdOf } from "../ingress/threadIdOf.js";
import { compositeKey, compositeKeyParts } from "./compositeKey.js";

/**
 * `platform:channel:thread` — one ACP session and one turn at a time per key. Always three parts,
 * each as `compositeKey` escapes it (`%` → `%25`, `:` → `%3A`), the thread empty when there is
 * none (`discord:123:`): two channels with the same thread id (Telegram topic ids repeat across
 * chats) are two conversations, and no platform, channel or thread name can spell another's key.
 * Never includes the sender: everyone in a thread shares the conversation.
 */
export function sessionKey(event: Pick<GatewayEvent, "platform" | "channel">): string {
  return compositeKey([event.platform, event.channel.id, threadIdOf(event.channel) ?? ""]);
}

/** What a session key is made of; `thread` is `undefined` for a conversation outside a thread. */
export interface SessionKeyParts {
  readonly platform: string;
  readonly channel: string;
  readonly thread: string | undefined;
}

/** The parts `sessionKey` built `key` from; `undefined` for a string it never makes. */
export function sessionKeyParts(key: string): SessionKeyParts | undefined {
  const parts = compositeKeyParts(key, 3);
  if (parts === undefined) return undefined;
  const [platform, channel, thread] = parts as [string, string, string];
  return { platform, channel, thread: thread === "" ? undefined : thread };
}
