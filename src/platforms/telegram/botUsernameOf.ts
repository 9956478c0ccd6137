import { Api } from "grammy";
import type { TelegramConfig } from "../../config/sections/telegram.js";
import { grammySignal } from "./grammySignal.js";

/**
 * The bot's username, asked of Telegram (`getMe`) by a process that holds no Telegram connection
 * of its own — a worker filling `{identity.name}` in `[delivery] response_prefix`. Rejects as the
 * call does (grammY's `GrammyError` / `HttpError`).
 */
export async function botUsernameOf(config: Pick<TelegramConfig, "bot_token" | "api_root">, signal: AbortSignal): Promise<string> {
  const me = await new Api(config.bot_token, { apiRoot: config.api_root }).getMe(grammySignal(signal));
  return me.username;
}
