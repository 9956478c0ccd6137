import type { Config } from "../config/index.js";
import { GatewayConnector } from "../gateway/connector.js";
import type { Logger } from "../log/logger.js";
import type { Instruments } from "../metrics/instruments.js";
import { nativePlatforms } from "../platforms/nativePlatforms.js";
import type { PlatformPort } from "../platforms/platformPort.js";
import { DiscordPort } from "../platforms/discord/index.js";
import { SlackPort } from "../platforms/slack/index.js";
import { TelegramPort } from "../platforms/telegram/index.js";

export interface PlatformPortsOptions {
  readonly logger: Logger;
  readonly version: string;
  readonly metrics: Instruments | undefined;
}

/** An edge's platform ports, as the config names them: the OpenAB gateway's (`[gateway]`), Telegram's (`[telegram]`), Discord's (`[discord]`), Slack's (`[slack]`). */
export function platformPorts(config: Config, { logger, version, metrics }: PlatformPortsOptions): PlatformPort[] {
  const ports: PlatformPort[] = [];
  if (config.gateway !== undefined) ports.push(gatewayConnector(config.gateway, [...nativePlatforms(config).keys()], logger, version, metrics));
  if (config.telegram !== undefined) ports.push(new TelegramPort({ config: config.telegram, logger: logger.child({ port: "telegram" }) }));
  if (config.discord !== undefined) ports.push(new DiscordPort({ config: config.discord, logger: logger.child({ port: "discord" }), speechToText: config.stt.enabled, memoryTtlMs: sessionTtlMs(config) }));
  if (config.slack !== undefined) ports.push(new SlackPort({ config: config.slack, logger: logger.child({ port: "slack" }), speechToText: config.stt.enabled, memoryTtlMs: sessionTtlMs(config) }));
  return ports;
}

/** How long Discord's and Slack's notes of who took part in a thread last: a session's life (`session_ttl_hours`), as upstream. */
function sessionTtlMs(config: Config): number {
  return config.pool.session_ttl_hours * 3_600_000;
}

/** Every port's start-up checks (`PlatformPort.prepare`), together, before any of them is started. */
export async function preparePorts(ports: readonly PlatformPort[]): Promise<void> {
  await Promise.all(ports.map((port) => port.prepare?.()));
}

/** An edge's connection to the gateway `[gateway]` names. */
function gatewayConnector(gateway: NonNullable<Config["gateway"]>, native: readonly string[], logger: Logger, clientVersion: string, instruments: Instruments | undefined): GatewayConnector {
  return new GatewayConnector({
    url: gateway.url,
    // A platform spoken to natively answers through its adapter: the gateway's events of it are skipped.
    ingress: native.length === 0 ? gateway : { ...gateway, native_platforms: native },
    ...(gateway.token === undefined ? {} : { token: gateway.token }),
    logger,
    maxFrameBytes: gateway.max_frame_bytes,
    clientVersion,
    legacyAckTimeoutMs: gateway.legacy_ack_timeout_secs * 1000,
    requiredAckTimeoutMs: gateway.gateway_ack_timeout_secs * 1000,
    keepaliveMs: gateway.keepalive_secs * 1000,
    streaming: gateway.streaming,
    streamingPlaceholder: gateway.streaming_placeholder,
    ...(instruments === undefined ? {} : { instruments }),
  });
}
