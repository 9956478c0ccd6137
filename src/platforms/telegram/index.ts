// Telegram, spoken to natively (`[telegram]`): the platform port and what every process knows of it.
export { TelegramPort, type TelegramPortOptions } from "./telegramPort.js";
export { BotTokenRejectedError } from "./botTokenRejectedError.js";
export { telegramCapabilities, TELEGRAM_MESSAGE_LIMIT } from "./telegramCapabilities.js";
export { TELEGRAM, readUpdate, telegramEventId, type UpdateReading, type UpdateSkip } from "./updateEvent.js";
export { botUsernameOf } from "./botUsernameOf.js";
