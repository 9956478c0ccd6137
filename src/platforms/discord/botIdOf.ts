/**
 * The bot's user id from its token: a Discord bot token's first dot-separated part is the bot's id
 * in base64 (public: it is the bot's user id); the rest is the secret. `"0"` for a token not shaped so.
 */
export function botIdOf(token: string): string {
  const head = token.split(".", 1)[0] ?? "";
  const id = Buffer.from(head, "base64").toString("utf8");
  return /^\d{1,20}$/.test(id) ? id : "0";
}
