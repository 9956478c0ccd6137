import { TOKEN } from "../fakes/telegram/fakeBotApiFixture.js";
import type { Member } from "./cluster.js";

/** The lease TTL of the Telegram NATS runs: short enough for a quick takeover, long enough for a loaded machine (partition leases flapped at 2 s). */
export const TTL_MS = 4_000;

/** Every process on native Telegram only (the fake Bot API at `apiRoot`): each turn its own (no collect window), no reactions or rate shaping to wait on. */
export function telegramDeployment(prefix: string, apiRoot: string) {
  return {
    gateway: false,
    bus: { prefix, lease_ttl_secs: TTL_MS / 1000, ack_wait_secs: 3 },
    config: {
      telegram: { bot_token: TOKEN, api_root: apiRoot, allow_all_users: true, streaming: false },
      queue: { mode: "followup", debounce_ms: 0 },
      reactions: { enabled: false },
      rate_limits: { telegram: { enabled: false } },
    },
  } as const;
}

/** A member's log lines with this message. */
export const logged = (member: Member, msg: string) => member.logs.filter((line) => line.msg === msg);
/** Whether a member ever acquired the bot's receiver lease. */
export const holds = (member: Member) => logged(member, "receiver lease acquired").length > 0;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
