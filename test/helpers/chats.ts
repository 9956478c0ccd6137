import { expect } from "vitest";
import { textsByConversation, type Arrival } from "./arrivals.js";
import type { Cluster } from "./cluster.js";
import { until, userEvent } from "./stack.js";

/** What the scripted agent's `envelope` scenario answers: three bubbles. */
export const BUBBLES = ["on it", "your flight moved to 8pm", "gate B12"];

/**
 * Config for many chats answering at once: each event its own turn at once (no collect window),
 * an agent session per chat, bubbles at the default 400 ms pacing, no status reactions (commands
 * are not what the rate-limit tests measure).
 */
export const chatsConfig = {
  delivery: { mode: "structured", bubble_delay_ms: 400 },
  queue: { mode: "followup", debounce_ms: 0 },
  reactions: { enabled: false },
  pool: { max_sessions: 40 },
};

/** The channel id of chat `i`. */
export const chatId = (i: number): string => `rl-${i}`;

/** How many turns the deployment completed so far. */
export const turnsDone = (cluster: Cluster): number => cluster.logged("turn complete").length;

/**
 * Chats `rl-0` … `rl-<count - 1>`, one-to-one on telegram, ask at once for the three-bubble reply.
 * Resolves once every bubble arrived and every turn is done, and checks that nothing more came
 * (no duplicates), that each chat got its three once each and in order, and that no turn failed.
 */
export async function answerChats(cluster: Cluster, arrivals: readonly Arrival[], count: number, timeoutMs: number): Promise<void> {
  const before = turnsDone(cluster);
  for (let i = 0; i < count; i++) cluster.gateway.broadcast(userEvent("envelope", { channel: { id: chatId(i), type: "dm" } }));
  expect(await until(() => arrivals.length >= count * BUBBLES.length && turnsDone(cluster) >= before + count, timeoutMs)).toBe(true);
  await new Promise((resolve) => setTimeout(resolve, 500));
  if (arrivals.length !== count * BUBBLES.length) throw new Error(`${arrivals.length} messages arrived, not ${count * BUBBLES.length}:\n${storyOf(cluster, arrivals)}`);
  const texts = textsByConversation(arrivals);
  expect(texts.size).toBe(count);
  for (let i = 0; i < count; i++) expect(texts.get(chatId(i))).toEqual(BUBBLES);
  expect(cluster.logged("turn failed")).toEqual([]);
}

/** Which chats got more or other than their three bubbles, and what the members logged about leases, re-runs and failed sends. */
function storyOf(cluster: Cluster, arrivals: readonly Arrival[]): string {
  const extra = [...textsByConversation(arrivals)].filter(([, texts]) => JSON.stringify(texts) !== JSON.stringify(BUBBLES));
  const story = cluster.members.flatMap((m) =>
    m.logs
      .filter((l) => /lease|re-run|repeated|redeliver|duplicate|failed|timed out|retry/.test(String(l.msg)))
      .map((l) => `${m.name} ${String(l.time)} ${String(l.msg)} ${JSON.stringify({ p: l.partition, e: l.event_id, r: l.reason, c: l.channel })}`),
  );
  return [...extra.map(([chat, texts]) => `${chat}: ${JSON.stringify(texts)}`), ...story].join("\n");
}
