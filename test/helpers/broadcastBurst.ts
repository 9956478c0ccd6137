import { expect } from "vitest";
import { type Cluster, heldPartitions as held } from "./cluster.js";
import { until, userEvent } from "./stack.js";

/** The scripted agent answers `say X` with exactly `X`. */
export function sessionEvent(session: number, n: number): Record<string, unknown> {
  return userEvent(`say s${session}-e${n}`, {
    event_id: `ev-s${session}-e${n}`,
    message_id: `m-s${session}-e${n}`,
    channel: { id: `chat-s${session}`, type: "dm" },
  });
}

/** Replies grouped by conversation, in arrival order. */
export function bySession(texts: readonly { channel: { id: string }; content: { text: string } }[]): Map<string, string[]> {
  const sessions = new Map<string, string[]>();
  for (const reply of texts) sessions.set(reply.channel.id, [...(sessions.get(reply.channel.id) ?? []), reply.content.text]);
  return sessions;
}

/** Partitions any of the workers holds now. */
export function ownedPartitions(workers: readonly { logs: Record<string, unknown>[] }[]): Set<number> {
  const all = new Set<number>();
  for (const worker of workers) for (const p of held(worker)) all.add(p);
  return all;
}

/**
 * 2 edges + 3 workers, every event broadcast to both edges: `sessions` conversations of
 * `perSession` events each, twenty conversations at a time with their events interleaved (per-
 * session order under concurrency, while no worker's pool has to hold every session at once).
 * Asserts each event got exactly one turn and one reply, in order per session, and that the
 * broadcast copies collapsed.
 */
export async function broadcastBurst(cluster: Cluster, sessions: number, perSession: number): Promise<void> {
  await Promise.all([cluster.add("edge"), cluster.add("edge")]);
  await Promise.all([cluster.add("worker"), cluster.add("worker"), cluster.add("worker")]);
  expect(await until(() => cluster.gateway.brokerCount === 2, 10_000)).toBe(true);
  const workers = cluster.members.filter((member) => member.role === "worker");
  expect(await until(() => workers.every((worker) => held(worker).size >= 5) && ownedPartitions(workers).size === 16, 30_000)).toBe(true);

  const block = Math.min(20, sessions);
  for (let first = 0; first < sessions; first += block) {
    for (let n = 0; n < perSession; n++) for (let s = first; s < first + block; s++) cluster.gateway.broadcast(sessionEvent(s, n));
    await cluster.replyCount((first + block) * perSession, 60_000);
  }
  const total = sessions * perSession;
  const replies = cluster.replies;
  // Nothing more arrives: no duplicates.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(cluster.replies).toHaveLength(total);
  expect(new Set(replies.map((reply) => reply.reply_to)).size).toBe(total);
  const bySessions = bySession(replies);
  expect(bySessions.size).toBe(sessions);
  for (let s = 0; s < sessions; s++) {
    expect(bySessions.get(`chat-s${s}`)).toEqual(Array.from({ length: perSession }, (_, n) => `s${s}-e${n}`));
  }
  // One turn per event: the agents were prompted once per event, and the broadcast copies collapsed.
  expect(cluster.agentEvents().filter((line) => line.startsWith("prompt "))).toHaveLength(total);
  expect(cluster.logged("duplicate event collapsed").length).toBe(total);
  // Every worker ran turns, and no partition changed hands: nothing was redelivered.
  for (const worker of workers) expect(worker.logs.filter((line) => line.msg === "turn complete").length).toBeGreaterThan(total / 20);
  expect(cluster.logged("partition lease lost")).toEqual([]);
}
