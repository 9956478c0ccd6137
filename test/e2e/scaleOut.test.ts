import { afterEach, describe, expect, it } from "vitest";
import { Cluster, heldPartitions as held, useNatsCluster } from "../helpers/cluster.js";
import { natsServerAvailable, startNatsServer, type NatsServer } from "../helpers/natsServer.js";
import { broadcastBurst, ownedPartitions, sessionEvent } from "../helpers/broadcastBurst.js";
import { until, userEvent } from "../helpers/stack.js";
import { RECOVERED_REPLY_MARKER } from "../../src/turn/turnLedger.js";

const available = natsServerAvailable();

/** Each event is its own turn (no collect window), so "one turn per event" can be counted. */
const followup = { queue: { mode: "followup", debounce_ms: 0 }, pool: { max_sessions: 40 } };

describe.skipIf(!available)("scale-out over NATS: edges, partitioned workers, shared state", () => {
  const nats = useNatsCluster();

  it("2 edges + 3 workers, every event broadcast to both edges: 200 events over 40 sessions each get exactly one turn, in order per session", async () => {
    // 2,000 events over 200 sessions: scaleOut.load.test.ts.
    const cluster = await nats.start({ bus: { prefix: "scale" }, config: followup, agentEnv: { LOAD_SESSION: "1" } });
    await broadcastBurst(cluster, 40, 5);
  }, 120_000);

  it(
    "kill -9 of a worker mid-stream: its partitions are owned again within 2 × lease TTL, every event still gets its reply, re-runs are marked",
    async () => {
      // 5 s, not 2: in a full run, other suites busy on both cores, not every reply completed within
      // 60 s. A lease renewed every second lapses under such load (the rate-limit scale-out tests
      // moved to the default TTL for the same reason), and each lapse moves turns mid-way. The
      // takeover is still timed against 2 × TTL.
      const ttlMs = 5_000;
      const cluster = await nats.start({
        bus: { prefix: "kill", lease_ttl_secs: ttlMs / 1000, ack_wait_secs: 3 },
        config: { ...followup, delivery: { mode: "sequential", bubble_delay_ms: 0 } },
        agentEnv: { SEQSLOW_MS: "1500" },
      });
      await cluster.add("edge");
      const workers = [await cluster.add("worker"), await cluster.add("worker"), await cluster.add("worker")];
      // Leases settle: every partition held by exactly one worker.
      expect(await until(() => ownedPartitions(workers).size === 16, 20_000)).toBe(true);

      // 30 sessions, one three-bubble turn each, bubbles 1.5 s apart: every worker is mid-turn.
      const events = Array.from({ length: 30 }, (_, s) => userEvent("seqslow", { event_id: `k-${s}`, message_id: `km-${s}`, channel: { id: `kill-${s}`, type: "dm" } }));
      for (const event of events) cluster.gateway.broadcast(event);
      await cluster.replyCount(30, 30_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      // The victim is whoever holds the most partitions now: on a loaded machine leases may have
      // moved since they settled, and the test is about killing a worker that owns some.
      const victim = workers.reduce((most, worker) => (held(worker).size > held(most).size ? worker : most));
      const survivors = workers.filter((worker) => worker !== victim);
      const orphaned = [...held(victim)];
      expect(orphaned.length).toBeGreaterThan(0);
      const killedAt = Date.now();
      victim.kill9();

      // Its partitions are taken over by the survivors within 2 × TTL (+ a second of slack for a shared machine).
      expect(await until(() => orphaned.every((p) => survivors.some((worker) => held(worker).has(p))), 4 * ttlMs)).toBe(true);
      // A partition a survivor already held at the kill was taken at once: under load the victim's
      // lease can lapse and move while its "lost" line is still on its way to this process.
      const acquiredSince = (p: number): number =>
        Math.min(...survivors.flatMap((w) => w.logs.filter((l) => l.msg === "partition lease acquired" && l.partition === p && Number(l.time) >= killedAt).map((l) => Number(l.time))));
      const takenAt = Math.max(...orphaned.map((p) => (survivors.some((w) => held(w, killedAt).has(p)) ? killedAt : acquiredSince(p))));
      expect(takenAt - killedAt).toBeLessThan(2 * ttlMs + 1_000);

      // Every event gets its whole reply: all three bubbles, in its first run or its re-run. A re-run
      // marks its first bubble, and that may be the only "on it" the chat sees: the victim can die
      // after recording that it began sending and before its first bubble left (marked: "may").
      const whole = (event: (typeof events)[number]) => {
        const seen = new Set(bubblesOf(cluster, String(event.event_id)).map(unmarked));
        return SEQSLOW_BUBBLES.every((text) => seen.has(text));
      };
      if (!(await until(() => events.every(whole), 60_000))) {
        const partial = events.filter((event) => !whole(event)).map((event) => `${String(event.event_id)}: ${JSON.stringify(bubblesOf(cluster, String(event.event_id)))}`);
        const story = cluster.members.flatMap((m) => m.logs.filter((l) => /lease|re-run|repeated|deferred|failed/.test(String(l.msg))).map((l) => `${m.name} ${String(l.time)} ${String(l.msg)} ${JSON.stringify({ p: l.partition, e: l.event_id, r: l.reason })}`));
        throw new Error(`events without their whole reply 60 s after the takeover:\n${partial.join("\n")}\n${story.join("\n")}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 2_000));

      const reruns = cluster.logged("interrupted turn re-run");
      expect(reruns.length).toBeGreaterThan(0);
      // On a loaded machine a survivor's slow turn can outlive its message's ack wait, so another
      // worker re-runs it too, and whichever of the two sends second finds the turn complete and
      // sends nothing (`completed turn not repeated`): then the marker is the other run's, if any.
      // Seen under load, here and before this change: a marked re-run with no marker, and two
      // re-runs of one event, one refused. Without that race a marked re-run shows exactly one.
      // Likewise a survivor's lease can lapse after its marked re-run recorded its attempt and before
      // its first bubble left: the next worker finds two attempts and gives up (`rerun_exhausted`),
      // which is right when the victim had sent the whole reply (checked above) — and then no marker.
      const notRepeated = new Set(cluster.logged("completed turn not repeated").map((line) => line.event_id));
      const givenUp = new Set(cluster.logged("interrupted turn not re-run again").map((line) => line.event_id));
      for (const event of events) {
        const texts = bubblesOf(cluster, String(event.event_id));
        const rerun = reruns.some((line) => line.event_id === event.event_id);
        if (!rerun) {
          // Completed turns are never repeated.
          expect(texts).toEqual(SEQSLOW_BUBBLES);
          continue;
        }
        // A re-run after bubbles went out says so on its first message; at most one re-run.
        expect(texts.length).toBeLessThanOrEqual(6);
        const marked = texts.filter((text) => text.startsWith("♻️ Recovered reply"));
        const interrupted = reruns.find((line) => line.event_id === event.event_id);
        expect(marked.length).toBeLessThanOrEqual(1);
        if (notRepeated.has(event.event_id) || givenUp.has(event.event_id)) continue;
        const story = cluster.members.flatMap((m) => m.logs.filter((l) => l.event_id === event.event_id).map((l) => `${m.name} ${String(l.msg)} ${String(l.reason ?? "")}`));
        expect(marked, `${String(event.event_id)}: ${JSON.stringify(texts)}\n${story.join("\n")}`).toHaveLength(interrupted?.marked === true ? 1 : 0);
      }
    },
    180_000,
  );

  it("triage across 3 workers: daily cap 3, ten proactive events for one conversation spread over workers → exactly 3 wake", async () => {
    const cluster = await nats.start({
      bus: { prefix: "triage" },
      config: { ...followup, triage: { enabled: true, timezone: "UTC", cooldown_secs: 0, daily_cap: 3, dedupe_window_secs: 3600 } },
      agentEnv: { SCENARIO: "text" },
    });
    await cluster.add("edge");
    const workers = [await cluster.add("worker"), await cluster.add("worker"), await cluster.add("worker")];
    // Spread over all three before anything is sent: right after start-up one worker may hold every partition.
    expect(await until(() => ownedPartitions(workers).size === 16 && workers.every((worker) => held(worker).size >= 5), 30_000)).toBe(true);
    // One conversation (platform:channel), ten threads: ten session keys, so ten partitions over three workers.
    for (let i = 0; i < 10; i++) {
      cluster.gateway.broadcast(userEvent(`proactive ${i}`, { event_id: `t-${i}`, proactive: true, channel: { id: "news", type: "dm", thread_id: `thread-${i}` } }));
    }
    const decided = () => cluster.logged("proactive event admitted by triage").length + cluster.logged("proactive event suppressed by triage").length;
    expect(await until(() => decided() === 10, 30_000)).toBe(true);
    expect(cluster.logged("proactive event admitted by triage")).toHaveLength(3);
    expect(cluster.logged("proactive event suppressed by triage").map((line) => line.reason)).toEqual(Array(7).fill("daily_cap"));
    const deciders = new Set(workers.filter((w) => w.logs.some((l) => l.msg === "proactive event admitted by triage" || l.msg === "proactive event suppressed by triage")));
    expect(deciders.size).toBeGreaterThan(1);
    await cluster.replyCount(3, 15_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(cluster.replies).toHaveLength(3);
  }, 120_000);

  it("a worker that takes over a session's partition resumes the session with session/load", async () => {
    const cluster = await nats.start({ bus: { prefix: "resume", lease_ttl_secs: 3 }, config: followup, agentEnv: { LOAD_SESSION: "1" } });
    await cluster.add("edge");
    const first = await cluster.add("worker");
    expect(await until(() => held(first).size === 16, 20_000)).toBe(true);
    cluster.gateway.broadcast(sessionEvent(5, 0));
    await cluster.replyCount(1, 20_000);
    const created = cluster.agentEvents().filter((line) => line.startsWith("new "));
    expect(created).toHaveLength(1);
    const sessionId = created[0]!.slice("new ".length);

    // A second worker joins, the first leaves gracefully: every partition moves to the second.
    const second = await cluster.add("worker");
    expect(await first.stop()).toBe(0);
    expect(await until(() => held(second).size === 16, 30_000)).toBe(true);

    cluster.gateway.broadcast(sessionEvent(5, 1));
    await cluster.replyCount(2, 30_000);
    expect(cluster.replies.map((reply) => reply.content.text)).toEqual(["s5-e0", "s5-e1"]);
    // The second worker's agent resumed the first one's session from the shared store.
    expect(cluster.agentEvents()).toContain(`load ${sessionId}`);
    expect(cluster.agentEvents().filter((line) => line.startsWith("new "))).toHaveLength(1);
  }, 120_000);
});

describe.skipIf(!available)("a worker cut off from NATS", () => {
  let server: NatsServer | undefined;
  let cluster: Cluster | undefined;
  afterEach(async () => {
    await cluster?.stop();
    await server?.stop();
  });

  it("stops consuming once its leases are overdue, reconnects, rejoins, and answers what arrived meanwhile", async () => {
    server = await startNatsServer();
    const ttlMs = 2_000;
    cluster = await Cluster.start({ natsUrl: server.url, bus: { prefix: "outage", lease_ttl_secs: ttlMs / 1000 }, config: followup });
    await cluster.add("edge");
    const worker = await cluster.add("worker");
    expect(await until(() => held(worker).size === 16, 20_000)).toBe(true);
    cluster.gateway.broadcast(sessionEvent(1, 0));
    await cluster.replyCount(1, 20_000);

    // Down for longer than the lease TTL: the worker must let go of every partition on its own.
    const outage = server.restart({ downMs: 2 * ttlMs });
    expect(await until(() => held(worker).size === 0, 4 * ttlMs)).toBe(true);
    expect(cluster.logged("partition lease lost").every((line) => line.reason === "renew_overdue" || line.reason === "expired")).toBe(true);
    // Events the gateway sends during the outage wait in the edge's queue retry.
    cluster.gateway.broadcast(sessionEvent(1, 1));
    cluster.gateway.broadcast(sessionEvent(2, 0));
    await outage;

    expect(await until(() => held(worker).size === 16, 30_000)).toBe(true);
    const replies = await cluster.replyCount(3, 60_000);
    expect(replies.map((reply) => reply.content.text).sort()).toEqual(["s1-e0", "s1-e1", "s2-e0"]);
  }, 120_000);
});

/** The scripted agent's `seqslow` turn: three bubbles. */
const SEQSLOW_BUBBLES = ["on it", "checking your mail now", "your flight moved to 8pm\ngate B12"];

/** A reply's text without a re-run's marker (a marker sent on its own reads as ""). */
function unmarked(text: string): string {
  return text.startsWith(RECOVERED_REPLY_MARKER) ? text.slice(RECOVERED_REPLY_MARKER.length).replace(/^\n\n/, "") : text;
}

function bubblesOf(cluster: Cluster, eventId: string): string[] {
  return cluster.replies.filter((reply) => reply.reply_to === eventId).map((reply) => reply.content.text);
}
