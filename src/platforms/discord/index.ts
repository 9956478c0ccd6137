// Discord, spoken to natively (`[discord]`): the platform port and what every process knows of it.
export { DiscordPort, DISCORD_INTENTS, type DiscordPortOptions } from "./discordPort.js";
export { DiscordTokenRejectedError } from "./discordTokenRejectedError.js";
export { discordCapabilities, DISCORD_MESSAGE_LIMIT } from "./discordCapabilities.js";
export { DISCORD, discordEventId } from "./messageEvent.js";
export { SLASH_COMMANDS } from "./slashCommands.js";
