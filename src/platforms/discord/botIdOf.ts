import { discordBotIdOf } from "../../config/sections/discord.js";

/**
 * The bot's user id from its token (public: the bot's user id; the rest of the token is the
 * secret). `"0"` for a token not shaped so, which `[discord]` refuses at start-up.
 */
export function botIdOf(token: string): string {
  return discordBotIdOf(token) ?? "0";
}
