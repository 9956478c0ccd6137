import { expect } from "vitest";
import type { NatsClusterFixture } from "./cluster.js";
import { until, userEvent } from "./stack.js";

/** Each event is its own turn (no collect window), so per-event order can be read off the replies. */
const followup = { queue: { mode: "followup", debounce_ms: 0, cap: 1000 }, pool: { max_sessions: 40 } };

/** The scripted agent answers `say X` with exactly `X`. */
function orderEvent(session: number, n: number): Record<string, unknown> {
  return userEvent(`say o${session}-${n}`, {
    event_id: `o-s${session}-${n}`,
    message_id: `om-s${session}-${n}`,
    channel: { id: `order-${session}`, type: "dm" },
  });
}

/** Pairs (earlier, later) of a session's events whose first replies arrived the other way round. */
function inversions(firstReplies: readonly number[]): number {
  let count = 0;
  for (let i = 1; i < firstReplies.length; i++) if (firstReplies[i]! < firstReplies[i - 1]!) count += 1;
  return count;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface FaultRun {
  readonly sessions: number;
  readonly perSession: number;
  /** One event every `everyMs`, round-robin over the sessions. */
  readonly everyMs: number;
  /** Into the traffic, the server is paused (SIGSTOP) for `pauseMs`, then killed (-9) and restarted on its store. */
  readonly faultAfterMs: number;
  readonly pauseMs: number;
}

/**
 * An edge and two workers under steady interleaved traffic while nats-server is paused, then
 * killed and restarted: asserts every event is answered, its first reply in order within its
 * session, and no completed turn repeated (a re-run of an interrupted one says so).
 */
export async function orderAcrossFaults(nats: NatsClusterFixture, { sessions, perSession, everyMs, faultAfterMs, pauseMs }: FaultRun): Promise<void> {
  const cluster = await nats.start({ bus: { prefix: "order", ack_wait_secs: 6 }, config: followup });
  await cluster.add("edge");
  await Promise.all([cluster.add("worker"), cluster.add("worker")]);
  expect(await until(() => cluster.logged("partition lease acquired").length >= 16, 30_000)).toBe(true);

  // Steady traffic, sessions interleaved, round-robin over the sessions, with the faults in its middle.
  const total = sessions * perSession;
  const traffic = (async () => {
    for (let i = 0; i < total; i++) {
      cluster.gateway.broadcast(orderEvent(i % sessions, Math.floor(i / sessions)));
      await sleep(everyMs);
    }
  })();
  const faults = (async () => {
    await sleep(faultAfterMs);
    await nats.server.pause(pauseMs);
    await sleep(1_500);
    await nats.server.restart({ signal: "SIGKILL" });
  })();
  await Promise.all([traffic, faults]);

  const ids = Array.from({ length: sessions }, (_, s) => Array.from({ length: perSession }, (_, n) => `o-s${s}-${n}`));
  const answered = () => new Set(cluster.replies.map((reply) => reply.reply_to));
  const ok = await until(() => ids.every((session) => session.every((id) => answered().has(id))), 120_000);
  if (!ok) {
    const missing = ids.flat().filter((id) => !answered().has(id));
    console.log("unanswered:", missing.join(" "));
    for (const m of cluster.members) {
      const counts = new Map<string, number>();
      for (const l of m.logs) if (Number(l.level) >= 40) counts.set(`${l.msg} ${l.reason ?? ""}`, (counts.get(`${l.msg} ${l.reason ?? ""}`) ?? 0) + 1);
      console.log(m.name, JSON.stringify([...counts]));
      const about = m.logs.filter((l) => missing.slice(0, 3).includes(String(l.event_id)));
      console.log(m.name, JSON.stringify(about.map((l) => [l.time, l.msg, l.reason, l.event_id, (l.err as { message?: string } | undefined)?.message])));
    }
  }
  expect(ok).toBe(true);
  await sleep(2_000); // anything repeated would arrive meanwhile

  // In order per session: each event's first reply after the previous event's.
  const firstReply = new Map<string, number>();
  cluster.replies.forEach((reply, index) => {
    if (!firstReply.has(reply.reply_to)) firstReply.set(reply.reply_to, index);
  });
  const inverted = ids.map((session) => inversions(session.map((id) => firstReply.get(id)!)));
  if (inverted.some((n) => n > 0)) {
    for (const session of ids) console.log(session.map((id) => `${id}@${firstReply.get(id)}`).join(" "));
  }
  expect(inverted.reduce((a, b) => a + b, 0)).toBe(0);

  // No completed turn repeated: one reply per event, unless a re-run of an interrupted one says so.
  for (const id of ids.flat()) {
    const texts = cluster.replies.filter((reply) => reply.reply_to === id).map((reply) => reply.content.text);
    expect(texts.slice(1).every((text) => text.startsWith("♻️ Recovered reply")), `${id}: ${JSON.stringify(texts)}`).toBe(true);
  }
}
