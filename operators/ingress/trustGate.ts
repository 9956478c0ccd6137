import { asyncScheduler, map, type OperatorFunction, type SchedulerLike } from "rxjs";
import type { OutboundMessage } from "../delivery/outboundMessage.js";
import { compositeKey } from "../dispatch/compositeKey.js";
import type { GatewayEvent } from "./gatewayEvent.js";
import { threadIdOf } from "./threadIdOf.js";

/** The `[gateway]` trust keys; the resolved `[gateway]` section fits (unset flags stay `undefined`). */
export interface TrustConfig {
  readonly allow_all_channels?: boolean | undefined;
  readonly allowed_channels: readonly string[];
  readonly allow_all_users?: boolean | undefined;
  readonly allowed_users: readonly string[];
}

export type TrustDecision = "allow" | "deny_scope" | "deny_identity";

export type TrustVerdict =
  | { readonly kind: "allow"; readonly event: GatewayEvent }
  | {
      readonly kind: "deny";
      readonly event: GatewayEvent;
      readonly decision: Exclude<TrustDecision, "allow">;
      /** The "not trusted" notice to post, present at most once per `platform:sender.id` per window. */
      readonly echo?: OutboundMessage;
    };

export interface TrustGateOptions {
  readonly scheduler?: SchedulerLike;
  /** How long one sender's echo silences the next ones; default `DENY_ECHO_WINDOW_MS` (the gateway's 5 min). */
  readonly echoWindowMs?: number;
}

/** How long one sender's deny echo silences the next ones (§12.3). */
export const DENY_ECHO_WINDOW_MS = 300_000;

/** The deny echo, byte for byte upstream's. */
export function denyEchoText(senderId: string): string {
  return `⚠️ You are not on this bot's trusted list.\nYour ID: ${senderId}\nAsk the admin to add it to allowed_users.`;
}

/**
 * The trust gate's decision for a gateway event (protocol §12.3): scope (L2), then identity (L3).
 * The gateway path judges DMs as channels (`is_dm = false`), and for `[gateway]` an unset
 * `allow_all_x` means "the `allowed_x` list is empty". An empty sender id is always denied.
 */
export function trustDecision(event: GatewayEvent, config: TrustConfig): TrustDecision {
  const allChannels = config.allow_all_channels ?? config.allowed_channels.length === 0;
  if (!allChannels && !config.allowed_channels.includes(event.channel.id)) return "deny_scope";
  const senderId = event.sender.id;
  const allUsers = config.allow_all_users ?? config.allowed_users.length === 0;
  if (senderId === "" || (!allUsers && !config.allowed_users.includes(senderId))) return "deny_identity";
  return "allow";
}

/**
 * Tags every event with its trust verdict. A `deny_identity` carries the echo to send when that
 * sender (`platform:sender.id`) has had none in the last `echoWindowMs` of scheduler time;
 * `deny_scope` is silent. The throttle lives in this operator's closure and forgets expired senders.
 */
export function trustGate(config: TrustConfig, options: TrustGateOptions = {}): OperatorFunction<GatewayEvent, TrustVerdict> {
  const scheduler = options.scheduler ?? asyncScheduler;
  const windowMs = options.echoWindowMs ?? DENY_ECHO_WINDOW_MS;
  // Insertion order is echo order (a key is re-inserted on each echo), so expired keys are at the front.
  const lastEcho = new Map<string, number>();

  const echoDue = (key: string, now: number): boolean => {
    for (const [oldest, at] of lastEcho) {
      if (now - at < windowMs) break;
      lastEcho.delete(oldest);
    }
    if (lastEcho.has(key)) return false;
    lastEcho.set(key, now);
    return true;
  };

  return map((event): TrustVerdict => {
    const decision = trustDecision(event, config);
    if (decision === "allow") return { kind: "allow", event };
    if (decision === "deny_scope" || !echoDue(compositeKey([event.platform, event.sender.id]), scheduler.now())) {
      return { kind: "deny", event, decision };
    }
    return { kind: "deny", event, decision, echo: denyEcho(event) };
  });
}

function denyEcho(event: GatewayEvent): OutboundMessage {
  const thread = threadIdOf(event.channel);
  return {
    reply_to: event.event_id,
    platform: event.platform,
    channel: thread !== undefined ? { id: event.channel.id, thread_id: thread } : { id: event.channel.id },
    content: { type: "text", text: denyEchoText(event.sender.id) },
  };
}
