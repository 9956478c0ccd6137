import { describe, expect, it } from "vitest";
import { partitionOf } from "../../operators/dispatch/partitionOf.js";
import { sessionKey } from "../../operators/dispatch/sessionKey.js";
import { heldPartitions as held, useNatsCluster } from "../helpers/cluster.js";
import { natsServerAvailable } from "../helpers/natsServer.js";
import { until, userEvent } from "../helpers/stack.js";

const mcpAgentPath = new URL("../../fixtures/agents/mcp-agent.mjs", import.meta.url).pathname;
const PER_WORKER = 4;

// `turnstream run` processes over a real nats-server: each worker hosts the reply tool for the
// sessions it runs, so an agent's call reaches the worker that owns the turn, whichever that is.
describe.skipIf(!natsServerAvailable())("the reply tool on the NATS bus with 2 workers", () => {
  const nats = useNatsCluster();

  it("every conversation's call reaches the worker running its turn: three paced bubbles each", async () => {
    const cluster = await nats.start({
      bus: { prefix: "replytool" },
      config: { delivery: { mode: "structured", bubble_delay_ms: 100 } },
      agentScript: mcpAgentPath,
    });
    await cluster.add("edge");
    await Promise.all([cluster.add("worker"), cluster.add("worker")]);
    const workers = cluster.members.filter((member) => member.role === "worker");
    const partitions = () => new Set(workers.flatMap((worker) => [...held(worker)]));
    // Balanced (8 each) before choosing conversations, so no partition changes hands mid-test.
    expect(await until(() => cluster.gateway.brokerCount === 1 && partitions().size === 16 && workers.every((w) => held(w).size === 8), 30_000)).toBe(true);

    // Conversations chosen by partition: PER_WORKER on each worker's partitions.
    const chats: string[] = [];
    for (const worker of workers) {
      const owned = held(worker);
      for (let n = 0, picked = 0; picked < PER_WORKER; n++) {
        const id = `chat-${n}`;
        if (chats.includes(id) || !owned.has(partitionOf(sessionKey({ platform: "telegram", channel: { id, type: "dm" } }), 16))) continue;
        chats.push(id);
        picked++;
      }
    }
    for (const [n, id] of chats.entries()) cluster.gateway.broadcast(userEvent("reply3", { event_id: `ev-${n}`, message_id: `m-${n}`, channel: { id, type: "dm" } }));
    await cluster.replyCount(chats.length * 3, 60_000);
    for (const id of chats) {
      expect(cluster.replies.filter((reply) => reply.channel.id === id).map((reply) => reply.content.text)).toEqual(["one", "two", "three"]);
    }
    // Each worker took the calls of its own sessions' turns.
    const called = workers.map((worker) => worker.logs.filter((line) => line.msg === "reply tool called").length);
    expect(called).toEqual([PER_WORKER, PER_WORKER]);
    expect(cluster.logged("reply tool call refused")).toHaveLength(0);
  }, 120_000);
});
