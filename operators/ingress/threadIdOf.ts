import type { GatewayChannel } from "./gatewayEvent.js";

/**
 * The channel's thread id, or `undefined` when it has none. `null` and `""` both mean "no thread",
 * as in `sessionKey`, so the skip rules, the sender context and replies agree with the session key.
 */
export function threadIdOf(channel: Pick<GatewayChannel, "thread_id">): string | undefined {
  const thread = channel.thread_id;
  return thread != null && thread !== "" ? thread : undefined;
}
