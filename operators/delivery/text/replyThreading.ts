/**
 * Which reply messages quote the user's message (`peers.md` §9): OpenClaw's `replyToMode`
 * (`src/auto-reply/reply/reply-threading.ts`) without `batched`, which is Hermes'
 * `should_thread_reply(reply_to, chunk_index)` once the target is fixed for the turn.
 */
export type ReplyToMode = "off" | "first" | "all";

/**
 * The message a reply's message number `index` (0-based, in send order) quotes: `target` for
 * all, for first only at index 0, never for off.
 */
export function quoteFor(mode: ReplyToMode, target: string | undefined, index: number): string | undefined {
  if (target === undefined) return undefined;
  switch (mode) {
    case "all":
      return target;
    case "first":
      return index === 0 ? target : undefined;
    case "off":
      return undefined;
  }
}
