import { expect } from "vitest";
import type { FakeBotApi } from "../fakes/telegram/index.js";
import { TOKEN } from "../fakes/telegram/fakeBotApiFixture.js";
import type { NatsClusterFixture } from "./cluster.js";
import { until } from "./stack.js";
import { taggedChats } from "./telegramChats.js";

// Issue 38's "kill -9 of the broker while updates are pending, restart: every update answered
// exactly once", for telegramKill.test.ts (20 updates) and telegramKill.load.test.ts (200): one
// `turnstream run` (role all) on a real nats-server, polling the fake Bot API.

export interface KillRun {
  /** Seconds from the first start to the last answer. */
  readonly seconds: number;
  /** Answered before the kill, and by the restarted broker. */
  readonly beforeKill: number;
  readonly afterRestart: number;
  /** Replies the restarted broker marked as recovered (their turn had begun sending when the broker died). */
  readonly recovered: number;
}

/**
 * Pushes `updates` messages over `chatCount` DMs before the broker starts, kills it with -9 once a
 * tenth is answered, restarts it, and checks every message was answered exactly once, getUpdates
 * never overlapping.
 */
export async function killWhilePending(nats: NatsClusterFixture, api: FakeBotApi, updates: number, chatCount: number): Promise<KillRun> {
  const cluster = await nats.start({
    gateway: false,
    bus: { prefix: `tgkill${updates}`, lease_ttl_secs: 4, ack_wait_secs: 3 },
    config: {
      telegram: { bot_token: TOKEN, api_root: api.root, allow_all_users: true, streaming: false },
      // Each message its own turn; nothing else to wait on: no reactions, no rate shaping.
      queue: { mode: "followup", debounce_ms: 0 },
      reactions: { enabled: false },
      rate_limits: { telegram: { enabled: false } },
    },
  });
  const chats = taggedChats(api, chatCount);
  for (let n = 0; n < updates; n++) chats.send(n % chatCount);
  const answered = () => [...chats.answers().values()].filter((count) => count > 0).length;

  const startedAt = Date.now();
  const first = await cluster.add("all", "first");
  expect(await until(() => answered() >= updates / 10, 60_000)).toBe(true);
  // The one window no broker closes — a message Telegram took whose delivery the ledger has not yet
  // recorded, re-sent marked by design (docs/scaling.md) — is kept out of this count: sends hang a
  // moment first (the fake applies none whose caller hangs up), so none is half-way at the kill.
  api.delay("sendMessage", 60_000);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const beforeKill = answered();
  first.kill9();
  await first.exited;
  api.delay("sendMessage", 0);
  expect(beforeKill).toBeLessThan(updates);

  await cluster.add("all", "restarted");
  expect(await until(() => answered() === updates, 120_000)).toBe(true);
  const seconds = (Date.now() - startedAt) / 1000;
  // Nothing arrives late a second time.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  expect(chats.notOnce()).toEqual({ missing: [], repeated: [] });
  expect(api.maxConcurrentPollers).toBe(1);
  expect(api.updates.pending()).toEqual([]);
  const recovered = chats.chats.flatMap(({ dm }) => api.botTexts(dm.id)).filter((text) => text?.startsWith("♻️")).length;
  return { seconds, beforeKill, afterRestart: updates - beforeKill, recovered };
}
