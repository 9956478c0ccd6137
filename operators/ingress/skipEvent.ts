import { filter, map, type MonoTypeOperatorFunction } from "rxjs";
import type { GatewayEvent } from "./gatewayEvent.js";
import { isGroupChannel } from "./groupChannel.js";
import { threadIdOf } from "./threadIdOf.js";

/** The `[gateway]` keys the structural skip rules read; the resolved `[gateway]` section fits. */
export interface SkipConfig {
  readonly allow_bot_messages: boolean;
  readonly trusted_bot_ids: readonly string[];
  /** Unset or `""`: no @mention gating. */
  readonly bot_username?: string | undefined;
  /**
   * Platforms whose events this source must not bring: those turnstream speaks to natively
   * (`[telegram]`, …), whose replies go to their own adapter — an event of theirs arriving through
   * the OpenAB gateway would be answered by the wrong bot. Default none.
   */
  readonly native_platforms?: readonly string[];
}

export type SkipReason = "platform_native" | "bot_not_trusted" | "not_mentioned";

/**
 * Why `event` is skipped before the trust gate, or `undefined` to keep it (protocol §12.2, first
 * match wins), after turnstream's own first rule: a platform spoken to natively comes only from its adapter. The channel and user allow-lists of upstream's `should_skip_event` are neutralised
 * on the gateway path; the trust gate applies them.
 */
export function skipReason(event: GatewayEvent, config: SkipConfig): SkipReason | undefined {
  if (config.native_platforms !== undefined && config.native_platforms.includes(event.platform)) return "platform_native";
  const { sender } = event;
  if (sender.is_bot && !config.allow_bot_messages && !config.trusted_bot_ids.includes(sender.id)) {
    return "bot_not_trusted";
  }
  const botUsername = config.bot_username;
  // A tap on the broker's own button is addressed to the bot by being one.
  if (
    event.tap === undefined &&
    isGroupChannel(event.channel) &&
    threadIdOf(event.channel) === undefined &&
    botUsername !== undefined &&
    botUsername !== "" &&
    !event.mentions.includes(botUsername)
  ) {
    return "not_mentioned";
  }
  return undefined;
}

export interface SkipOptions {
  /**
   * `[inbound] history_limit` > 0: a message skipped as `not_mentioned` passes on marked
   * `history: true` (kept as group history for the next turn) instead of being dropped.
   */
  readonly keepUnmentioned?: boolean;
}

/**
 * Drops the events `skipReason` skips; `onSkip` sees each one with its reason (for the log line).
 * With `keepUnmentioned`, an unmentioned group message passes as history instead (not told to `onSkip`).
 */
export function skipEvents(
  config: SkipConfig,
  onSkip?: (event: GatewayEvent, reason: SkipReason) => void,
  options: SkipOptions = {},
): MonoTypeOperatorFunction<GatewayEvent> {
  const keepUnmentioned = options.keepUnmentioned === true;
  return (events) =>
    events.pipe(
      map((event) => {
        const reason = skipReason(event, config);
        if (reason === undefined) return event;
        if (reason === "not_mentioned" && keepUnmentioned) return { ...event, history: true as const };
        onSkip?.(event, reason);
        return undefined;
      }),
      filter((event): event is GatewayEvent => event !== undefined),
    );
}
