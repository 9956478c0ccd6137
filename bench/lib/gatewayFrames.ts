/**
 * The gateway frames the ingress benchmarks send: `openab.gateway.event.v1` text frames, as
 * OpenAB's gateway writes them (JSON, snake_case, nulls for absent optionals).
 *
 * Event `i` belongs to conversation `i % sessions`; even conversations are DMs, odd ones groups
 * whose messages @mention the bot (so the skip rules' mention check runs and passes). Every
 * `proactiveEvery`-th event is proactive (a scheduled reminder: it goes through triage), the rest
 * are human text messages from one of 32 allow-listed users.
 */
export const BOT_USERNAME = "turnbot";
export const ALLOWED_USERS: readonly string[] = Array.from({ length: 32 }, (_, i) => `user-${i}`);

export interface FrameMix {
  readonly sessions: number;
  /** 0: no proactive events. */
  readonly proactiveEvery: number;
  /** Distinguishes runs, so every run's event ids are new (the duplicate window would collapse repeats). */
  readonly runTag: string;
  /** Put before every human message's text (the soak benchmark's `echo ` picks the stamp agent's scenario). */
  readonly textPrefix?: string;
}

export function gatewayFrame(i: number, mix: FrameMix): string {
  const conversation = i % mix.sessions;
  const group = conversation % 2 === 1;
  const proactive = mix.proactiveEvery > 0 && i % mix.proactiveEvery === mix.proactiveEvery - 1;
  const user = ALLOWED_USERS[i % ALLOWED_USERS.length] as string;
  return JSON.stringify({
    schema: "openab.gateway.event.v1",
    event_id: `evt-${mix.runTag}-${i}`,
    timestamp: "2026-01-05T09:30:00.000Z",
    platform: "telegram",
    channel: { id: `chat-${conversation}`, type: group ? "group" : "dm", thread_id: null },
    sender: { id: user, name: user, display_name: `User ${user}`, is_bot: false },
    content: { type: "text", text: proactive ? "reminder: stand-up in 10 minutes" : `${mix.textPrefix ?? ""}message ${i}: how is the deploy going?`, attachments: [] },
    mentions: group ? [BOT_USERNAME] : [],
    message_id: `msg-${mix.runTag}-${i}`,
    proactive,
  });
}

/** The `[gateway]` trust and skip keys both implementations judge the frames by. */
export function ingressGatewayConfig(url: string, token: string) {
  return {
    url,
    token,
    bot_username: BOT_USERNAME,
    allow_all_channels: true,
    allowed_users: [...ALLOWED_USERS],
  };
}
