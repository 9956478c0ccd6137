import { CronExpressionError, parseCronExpression } from "../../operators/cron/cronExpression.js";
import { isCronTimezone } from "../../operators/cron/cronTime.js";
import { untrustedText } from "../../operators/ingress/untrustedText.js";
import { printValue } from "./problems/printValue.js";
import type { Config } from "./schema.js";
import type { CronJobConfig } from "./sections/cron.js";

/**
 * What is wrong with one cron job's values, in upstream's order and words (`validate_cronjobs`,
 * `load_usercron_file`): its schedule, its timezone, its platform. config.toml reports every fault
 * of an enabled job (`problems/cronChecks.ts`); the usercron file drops an entry on its first.
 */

/** The platforms turnstream connects to itself: a cron job on one of them needs its section. */
export const NATIVE_CRON_PLATFORMS = ["telegram", "discord", "slack"] as const;

/** Which platforms a cron job may post to: the native ones whose section is present, and any other through `[gateway]`. */
export interface CronPlatforms {
  readonly native: ReadonlySet<string>;
  /** `[gateway]` is present: it carries any platform but the native ones. */
  readonly gateway: boolean;
}

export function cronPlatformsOf(config: Pick<Config, "telegram" | "discord" | "slack" | "gateway">): CronPlatforms {
  const native = new Set(NATIVE_CRON_PLATFORMS.filter((name) => config[name] !== undefined));
  return { native, gateway: config.gateway !== undefined };
}

export type CronJobFaultReason = "invalid_cron_expression" | "invalid_timezone" | "unknown_platform" | "platform_not_configured";

export interface CronJobFault {
  /** The job's key at fault. */
  readonly key: "schedule" | "timezone" | "platform";
  readonly reason: CronJobFaultReason;
  /** One line, upstream's words, the value quoted and bounded. */
  readonly message: string;
  /** The parser's reason, for `invalid_cron_expression`: bounded, one line. */
  readonly detail?: string;
}

/** The parser's reason, on one line and bounded: it may quote the expression. */
const DETAIL_MAX_CHARS = 200;

export function scheduleFault(schedule: string): CronJobFault | undefined {
  try {
    parseCronExpression(schedule);
    return undefined;
  } catch (error) {
    if (!(error instanceof CronExpressionError)) throw error;
    const detail = untrustedText(error.message, { maxChars: DETAIL_MAX_CHARS });
    return { key: "schedule", reason: "invalid_cron_expression", message: `invalid cron expression ${printValue(schedule)}: ${detail}`, detail };
  }
}

export function timezoneFault(timezone: string): CronJobFault | undefined {
  if (isCronTimezone(timezone)) return undefined;
  return { key: "timezone", reason: "invalid_timezone", message: `invalid timezone ${printValue(timezone)}` };
}

export function platformFault(platform: string, platforms: CronPlatforms): CronJobFault | undefined {
  const native = (NATIVE_CRON_PLATFORMS as readonly string[]).includes(platform);
  if (native) {
    if (platforms.native.has(platform)) return undefined;
    return { key: "platform", reason: "platform_not_configured", message: `platform ${printValue(platform)} is not configured — add [${platform}] to config.toml` };
  }
  if (platforms.gateway) return undefined;
  return {
    key: "platform",
    reason: "unknown_platform",
    message: `unknown platform ${printValue(platform)} (expected one of: ${NATIVE_CRON_PLATFORMS.join(", ")}); other platforms go through [gateway]`,
  };
}

/** Every fault of a job's values, in upstream's order. */
export function cronJobFaults(job: Pick<CronJobConfig, "schedule" | "timezone" | "platform">, platforms: CronPlatforms): CronJobFault[] {
  return [scheduleFault(job.schedule), timezoneFault(job.timezone), platformFault(job.platform, platforms)].filter((fault) => fault !== undefined);
}
