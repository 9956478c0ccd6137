import type { PlatformCapabilities } from "../../operators/ingress/frames/helloFrame.js";
import type { Config } from "../config/index.js";
import { discordCapabilities } from "./discord/discordCapabilities.js";
import { DISCORD } from "./discord/messageEvent.js";
import { slackCapabilities } from "./slack/slackCapabilities.js";
import { SLACK } from "./slack/slackMessageEvent.js";
import { telegramCapabilities } from "./telegram/telegramCapabilities.js";
import { TELEGRAM } from "./telegram/updateEvent.js";

/**
 * The platforms this deployment speaks to natively, from its config: every process knows them,
 * so a worker sends to the adapters' own subjects and reads their fixed capabilities without
 * holding the connection itself.
 */
export function nativePlatforms(config: Config): Map<string, PlatformCapabilities> {
  const native = new Map<string, PlatformCapabilities>();
  if (config.telegram !== undefined) native.set(TELEGRAM, telegramCapabilities(config.telegram));
  if (config.discord !== undefined) native.set(DISCORD, discordCapabilities());
  if (config.slack !== undefined) native.set(SLACK, slackCapabilities(config.slack));
  return native;
}
