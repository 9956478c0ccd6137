import * as z from "zod";
import { agentSection } from "./sections/agent.js";
import { busSection } from "./sections/bus.js";
import { cronSection } from "./sections/cron.js";
import { deliverySection } from "./sections/delivery.js";
import { devGatewaySection } from "./sections/devGateway.js";
import { discordSection } from "./sections/discord.js";
import { gatewaySection } from "./sections/gateway.js";
import { inboundSection } from "./sections/inbound.js";
import { logSection } from "./sections/log.js";
import { metricsSection } from "./sections/metrics.js";
import { poolSection } from "./sections/pool.js";
import { queueSection } from "./sections/queue.js";
import { rateLimitsSection } from "./sections/rateLimits.js";
import { activitySection } from "./sections/activity.js";
import { reactionsSection } from "./sections/reactions.js";
import { silentSection } from "./sections/silent.js";
import { slackSection } from "./sections/slack.js";
import { sttSection } from "./sections/stt.js";
import { telegramSection } from "./sections/telegram.js";
import { triageSection } from "./sections/triage.js";
import { webhooksSection } from "./sections/webhooks.js";

/**
 * The whole config file. `env` is the broker's environment, read only by `[agent]` defaults,
 * `[telegram]`'s fallbacks (`TELEGRAM_*`) and `${VAR}` expansion; every other section is static.
 */
export function configSchemaFor(env: NodeJS.ProcessEnv) {
  return z.strictObject({
    // OpenAB's sections, same names and defaults.
    gateway: gatewaySection.optional(),
    agent: agentSection(env),
    pool: poolSection,
    delivery: deliverySection,
    triage: triageSection,
    reactions: reactionsSection,
    stt: sttSection,
    telegram: telegramSection(env).optional(),
    discord: discordSection.optional(),
    slack: slackSection.optional(),
    cron: cronSection,
    // turnstream's own.
    bus: busSection,
    inbound: inboundSection,
    queue: queueSection,
    dev_gateway: devGatewaySection,
    metrics: metricsSection,
    rate_limits: rateLimitsSection,
    log: logSection,
    silent: silentSection,
    activity: activitySection,
    webhooks: webhooksSection,
  });
}

/** The schema against an empty environment: for its types and for walking its keys, not for resolving a real config. */
export const configSchema = configSchemaFor({});

/** A resolved config: every default filled, every alias normalized. */
export type Config = z.output<typeof configSchema>;
/** What a programmatic user may pass to resolveConfig: TOML-shaped, every key optional except `gateway.url`. */
export type ConfigInput = z.input<typeof configSchema>;
