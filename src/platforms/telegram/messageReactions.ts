/** What one reaction command does on Telegram: set the message's reaction list to `reaction`, or nothing. */
export type ReactionCall = { readonly set: readonly string[] } | { readonly skip: "unchanged" | "not_shown" };

/**
 * One `add_reaction` / `remove_reaction` of a Telegram emoji on a message the bot shows `shown` on
 * (undefined: none this edge knows of). A bot keeps one reaction per message, so an add replaces
 * the list with the one emoji (as upstream's newer gateway does); a remove clears it only when that
 * emoji is the one shown. A remove of another emoji, or of one this edge never set (the add went out
 * through another edge), changes nothing: the status machine adds the next emoji before it removes
 * the last, and clearing on a guess would take the newer one away.
 */
export function reactionCall(shown: string | undefined, op: "add" | "remove", emoji: string): ReactionCall {
  if (op === "add") return shown === emoji ? { skip: "unchanged" } : { set: [emoji] };
  return shown === emoji ? { set: [] } : { skip: "not_shown" };
}

/** How many messages' reactions an edge remembers (the oldest forgotten first). */
const REMEMBERED = 10_000;

/** The reaction this edge last set on each message (`chat:message`), bounded. */
export class MessageReactions {
  readonly #shown = new Map<string, string>();

  shown(key: string): string | undefined {
    return this.#shown.get(key);
  }

  /** Records what the message shows after a call went through (`undefined`: nothing). */
  set(key: string, emoji: string | undefined): void {
    this.#shown.delete(key);
    if (emoji === undefined) return;
    this.#shown.set(key, emoji);
    if (this.#shown.size > REMEMBERED) this.#shown.delete(this.#shown.keys().next().value!);
  }
}
