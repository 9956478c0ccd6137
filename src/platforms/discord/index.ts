// Discord, spoken to natively (`[discord]`): the platform port and what every process knows of it.
export { DiscordPort, type DiscordPortOptions } from "./discordPort.js";
export { DISCORD_INTENTS } from "./gatewaySession.js";
export { DiscordTokenRejectedError } from "./discordTokenRejectedError.js";
export { discordCapabilities, DISCORD_MESSAGE_LIMIT } from "./discordCapabilities.js";
export { DISCORD, discordEventId } from "./messageEvent.js";
export { SLASH_COMMANDS } from "./slashCommands.js";
