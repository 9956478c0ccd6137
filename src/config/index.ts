// The config module's door: loading, validation errors, masking, and the pure helpers other
// modules need. Schema internals (field builders, problem wording, key walking) stay private.
export { ConfigError, type ConfigErrorOptions, type ConfigProblem } from "./errors.js";
export { defaultConfig, loadConfigFile, parseConfigText, type ResolveOptions, resolveConfig } from "./load.js";
export { busCredentialProblems, busUrlHasUserinfo, crossCheckProblems } from "./problems/crossChecks.js";
export { maskSecrets, secretValues } from "./secrets/mask.js";
export { redactUrl, redactUrlsIn, urlHasToken } from "./secrets/redactUrl.js";
export { parseQuietHours, type QuietHours, QuietHoursError } from "./quietHours.js";
export type { Config, ConfigInput } from "./schema.js";
export type { AgentConfig } from "./sections/agent.js";
export type { TelegramConfig, TelegramMode } from "./sections/telegram.js";
export type { DiscordConfig } from "./sections/discord.js";
export type { SlackConfig } from "./sections/slack.js";
export { processingOf, type Processing } from "./processing.js";
