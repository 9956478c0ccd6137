import { describe, expect, it } from "vitest";
import { heldPartitions as held, useNatsCluster } from "../helpers/cluster.js";
import { natsServerAvailable } from "../helpers/natsServer.js";
import { until, userEvent } from "../helpers/stack.js";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";

// A worker whose leases lapse while it is alive — stalled past half the TTL (a loaded machine, a
// long GC pause; here SIGSTOP) — loses its partitions to another worker, but its turns under way go
// on. Their events stay claimed by it until those turns settle them: the next owner never gets
// them, so nothing is answered twice (before, they were handed back with the rest and re-run
// while the first run still sent: the rate-limit scale-out test's duplicates under load).

const available = natsServerAvailable();

/** The scripted agent's `seqslow` turn: three bubbles, `SEQSLOW_MS` apart. */
const SEQSLOW_BUBBLES = ["on it", "checking your mail now", "your flight moved to 8pm\ngate B12"];

describe.skipIf(!available)("a worker whose leases lapse mid-turn", () => {
  const nats = useNatsCluster();

  it("frozen past the lease TTL mid-turn: its partitions move, its running turns finish where they are, every event answered exactly once", async () => {
    const ttlMs = 2_000;
    const cluster = await nats.start({
      // The ack wait outlasts the freeze: the frozen worker's events are not redelivered by it either.
      bus: { prefix: "lapse", lease_ttl_secs: ttlMs / 1000, ack_wait_secs: 30 },
      config: { queue: { mode: "followup", debounce_ms: 0 }, delivery: { mode: "sequential", bubble_delay_ms: 0 } },
      // Bubbles 8 s apart: a turn still sends well after the hand-back delay (3.75 s) that follows the lost lease.
      agentEnv: { SEQSLOW_MS: "8000" },
    });
    await cluster.add("edge");
    const workers = [await cluster.add("worker"), await cluster.add("worker")];
    expect(await until(() => workers.every((worker) => held(worker).size >= 6) && held(workers[0]!).size + held(workers[1]!).size === 16, 30_000)).toBe(true);

    const events = Array.from({ length: 12 }, (_, i) => userEvent("seqslow", { event_id: `lapse-${i}`, message_id: `lm-${i}`, channel: { id: `lapse-${i}`, type: "dm" } }));
    for (const event of events) cluster.gateway.broadcast(event);
    // Every turn under way: its first bubble out, two more to come.
    expect(await until(() => events.every((event) => bubblesOf(cluster, event.event_id as string).length >= 1), 30_000)).toBe(true);

    const frozen = workers.reduce((most, worker) => (held(worker).size > held(most).size ? worker : most));
    const other = workers.find((worker) => worker !== frozen)!;
    const frozenAt = Date.now();
    frozen.child.kill("SIGSTOP");
    // Past the TTL: the other worker takes the frozen one's partitions, and keeps them once the
    // frozen one's presence expired too (while it shows, the other would hand back its share).
    const moved = await until(() => held(other).size === 16, 6 * ttlMs);
    await new Promise((resolve) => setTimeout(resolve, 2 * ttlMs));
    // Back, the frozen worker finds its leases overdue and lets go of them; it is told to stop, so
    // the partitions stay where they went (it would take its share back), and its running turns
    // finish within the shutdown grace.
    frozen.child.kill("SIGCONT");
    const stopped = frozen.stop();
    expect(moved).toBe(true);
    expect(other.logs.some((line) => line.msg === "partition lease acquired" && Number(line.time) >= frozenAt)).toBe(true);
    expect(await stopped).toBe(0);
    expect(frozen.logs.some((line) => line.msg === "partition lease lost")).toBe(true);

    const whole = () => events.every((event) => bubblesOf(cluster, event.event_id as string).length >= SEQSLOW_BUBBLES.length);
    expect(await until(whole, 60_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    // Nothing was handed back: no partition's consumer redelivered an event or waits for an ack.
    // Handed back, an event is redelivered after the hand-back delay, and the other worker re-runs
    // it, marked, while the first run still sends (or, when nats-server 2.9 loses that delivery
    // until the ack wait, it waits unacked, its first run's ack discarded).
    const consumers = await consumerStates(nats.server.url, "lapse_turns");
    expect(consumers.filter((consumer) => consumer.redelivered > 0 || consumer.ackPending > 0)).toEqual([]);
    for (const event of events) expect(bubblesOf(cluster, event.event_id as string), String(event.event_id)).toEqual(SEQSLOW_BUBBLES);
    expect(cluster.logged("interrupted turn re-run")).toEqual([]);
    expect(cluster.logged("completed turn not repeated")).toEqual([]);
    expect(cluster.logged("turn failed")).toEqual([]);
    // The frozen worker finished turns of its own after it lost their partitions.
    const lostAt = Math.min(...frozen.logs.filter((line) => line.msg === "partition lease lost").map((line) => Number(line.time)));
    expect(frozen.logs.filter((line) => line.msg === "turn complete" && Number(line.time) > lostAt).length).toBeGreaterThan(0);
  }, 120_000);
});

function bubblesOf(cluster: { replies: readonly { reply_to?: string; content: { text: string } }[] }, eventId: string): string[] {
  return cluster.replies.filter((reply) => reply.reply_to === eventId).map((reply) => reply.content.text);
}

/** Each durable consumer of `stream`: how many of its deliveries were redeliveries, and how many wait for an ack. */
async function consumerStates(url: string, stream: string): Promise<{ name: string; redelivered: number; ackPending: number }[]> {
  const connection = await connect({ servers: url });
  try {
    const states: { name: string; redelivered: number; ackPending: number }[] = [];
    for await (const info of (await jetstreamManager(connection)).consumers.list(stream)) states.push({ name: info.name, redelivered: info.num_redelivered, ackPending: info.num_ack_pending });
    return states;
  } finally {
    await connection.close();
  }
}
