import type { Config } from "../config/index.js";
import { GatewayConnector } from "../gateway/connector.js";
import type { Logger } from "../log/logger.js";
import type { Instruments } from "../metrics/instruments.js";
import { DeferredPort } from "../platforms/deferredPort.js";
import { nativePlatforms } from "../platforms/nativePlatforms.js";
import type { PlatformPort } from "../platforms/platformPort.js";

export interface PlatformPortsOptions {
  readonly logger: Logger;
  readonly version: string;
  readonly metrics: Instruments | undefined;
}

/**
 * An edge's platform ports, as the config names them: the OpenAB gateway's (`[gateway]`), and
 * Telegram's, Discord's and Slack's (`[telegram]`, `[discord]`, `[slack]`), each a `DeferredPort`
 * whose adapter (and platform SDK) is imported only when the broker prepares it.
 */
export function platformPorts(config: Config, { logger, version, metrics }: PlatformPortsOptions): PlatformPort[] {
  const native = nativePlatforms(config);
  const ports: PlatformPort[] = [];
  if (config.gateway !== undefined) ports.push(gatewayConnector(config.gateway, [...native.keys()], logger, version, metrics));
  for (const [name, capabilities] of native) ports.push(new DeferredPort({ name, capabilities, load: () => loadAdapter(name, config, logger.child({ port: name })) }));
  return ports;
}

/** The adapter of a native platform the config names, its module (and the platform's SDK) imported now. */
async function loadAdapter(name: string, config: Config, logger: Logger): Promise<PlatformPort> {
  const { telegram, discord, slack } = config;
  // Both keep notes of who took part in a thread; upstream drops them after a session's life.
  const shared = { logger, speechToText: config.stt.enabled, memoryTtlMs: sessionTtlMs(config) };
  if (name === "telegram" && telegram !== undefined) return new (await import("../platforms/telegram/index.js")).TelegramPort({ config: telegram, logger });
  if (name === "discord" && discord !== undefined) return new (await import("../platforms/discord/index.js")).DiscordPort({ config: discord, ...shared });
  if (name === "slack" && slack !== undefined) return new (await import("../platforms/slack/index.js")).SlackPort({ config: slack, ...shared });
  throw new Error(`no native adapter for ${name}`);
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
