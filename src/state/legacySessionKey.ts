import { sessionKeyParts } from "../../operators/dispatch/sessionKey.js";

/**
 * The key earlier turnstream versions gave the conversation of `key` (a current session key):
 * `platform:thread_or_channel`, unescaped. Many conversations had the same old key (one thread id
 * in two chats), so an old entry is handed to the first conversation that asks for it and to no
 * other. `undefined` when `key` is no session key (a store serves any string).
 */
export function legacySessionKey(key: string): string | undefined {
  const parts = sessionKeyParts(key);
  return parts === undefined ? undefined : `${parts.platform}:${parts.thread ?? parts.channel}`;
}
