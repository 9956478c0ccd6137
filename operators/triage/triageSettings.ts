import { IANAZone } from "luxon";
import { parseQuietHours, type QuietHours, QuietHoursError } from "./quietHours.js";

/** The `[triage]` keys as the resolved config holds them; the resolved `[triage]` section fits. */
export interface TriageConfig {
  readonly enabled: boolean;
  readonly quiet_hours?: string | undefined;
  readonly timezone: string;
  readonly cooldown_secs: number;
  readonly daily_cap: number;
  readonly dedupe_window_secs: number;
}

/** What `admit` consults: the config with the quiet window parsed once. `0` turns a limit off. */
export interface TriageSettings {
  /** Off: every proactive event wakes and nothing is tracked. */
  readonly enabled: boolean;
  readonly quietHours?: QuietHours | undefined;
  /** IANA zone for quiet hours and the daily cap's day. */
  readonly timezone: string;
  /** Minimum whole seconds between two wakes of one conversation. */
  readonly cooldownSecs: number;
  /** Wakes per conversation per local day. */
  readonly dailyCap: number;
  /** How long an `event_id` is remembered for duplicate suppression. */
  readonly dedupeWindowSecs: number;
}

/** Upstream's `TriageSettings::default()`: off, UTC, no limits. (The config's defaults differ.) */
export const DISABLED_TRIAGE: TriageSettings = Object.freeze({
  enabled: false,
  timezone: "UTC",
  cooldownSecs: 0,
  dailyCap: 0,
  dedupeWindowSecs: 0,
});

/** A `[triage]` value that cannot be resolved; the message reads like upstream's start-up error. */
export class TriageSettingsError extends Error {
  override readonly name = "TriageSettingsError";
  constructor(
    readonly key: "quiet_hours" | "timezone",
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`triage.${key}: ${detail}`, options);
  }
}

/** Throws TriageSettingsError when `timezone` is not a known IANA zone. */
export function checkTimezone(timezone: string): void {
  if (!IANAZone.isValidZone(timezone)) throw new TriageSettingsError("timezone", `invalid timezone ${JSON.stringify(timezone)}`);
}

/**
 * Resolves `[triage]` once, at start-up: parses `quiet_hours` and checks `timezone`. Throws
 * TriageSettingsError (a QuietHoursError as its `cause`); a config that passed validation never does.
 */
export function settingsFromConfig(config: TriageConfig): TriageSettings {
  let quietHours: QuietHours | undefined;
  if (config.quiet_hours !== undefined) {
    try {
      quietHours = parseQuietHours(config.quiet_hours);
    } catch (error) {
      if (error instanceof QuietHoursError) throw new TriageSettingsError("quiet_hours", error.message, { cause: error });
      throw error;
    }
  }
  checkTimezone(config.timezone);
  return {
    enabled: config.enabled,
    quietHours,
    timezone: config.timezone,
    cooldownSecs: config.cooldown_secs,
    dailyCap: config.daily_cap,
    dedupeWindowSecs: config.dedupe_window_secs,
  };
}
