import type { Directory } from "./directory.js";

/** An emoji a reaction route named, as the fake keys it: the Unicode emoji itself, or `name:id`. */
export interface ReactionEmoji {
  readonly key: string;
  readonly id: string | null;
  readonly name: string;
}

// Built at run time: TypeScript targets ES2022, whose syntax lacks the `v` flag that Node 20 has.
const SINGLE_EMOJI = new RegExp("^\\p{RGI_Emoji}$", "v");

/**
 * The `{emoji}` segment of a reaction route, as Discord reads it: URL-encoded (raw non-ASCII in the path is
 * 10014 Unknown Emoji, the docs say), then one Unicode emoji (a text-style base such as "⚠" without its
 * U+FE0F counts, as clients send both), or `name:id` of a custom emoji in a guild the bot is in. Anything
 * else is undefined: 10014.
 */
export function readReactionEmoji(raw: string, directory: Directory): ReactionEmoji | undefined {
  if (/[^\x21-\x7e]/.test(raw)) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  const custom = /^(?:a:)?([A-Za-z0-9_~]{2,32}):(\d{17,20})$/.exec(decoded);
  if (custom) {
    const emoji = directory.emoji(custom[2]!);
    return emoji ? { key: `${emoji.name}:${emoji.id}`, id: emoji.id, name: emoji.name } : undefined;
  }
  if (SINGLE_EMOJI.test(decoded) || SINGLE_EMOJI.test(`${decoded}\uFE0F`)) return { key: decoded, id: null, name: decoded };
  return undefined;
}
