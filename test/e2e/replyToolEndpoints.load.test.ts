import { afterEach, describe, expect, it } from "vitest";
import { floodAndChat, startFloodedBroker, type FloodedBroker } from "../helpers/replyToolFlood.js";

// Issue 36 at its reported size: 1,000 unauthenticated `GET /mcp` streams against a broker with a
// 1,024-descriptor limit (then 1,000 silent connections held through a new chat). The normal
// suite's 300-against-256 sibling is replyToolEndpoints.test.ts.

let broker: FloodedBroker | undefined;
afterEach(async () => {
  await broker?.cluster.stop();
  broker = undefined;
});

describe("the reply tool's HTTP endpoint under 1,000 unauthenticated clients (spawned broker, ulimit -n 1024)", () => {
  it("1,000 GET /mcp streams and 1,000 silent connections: descriptors stay bounded, new chats and reply tool calls work", async () => {
    broker = await startFloodedBroker(1024);
    const figures = await floodAndChat(broker, 1000);
    // Reported: the 1,000 streams stayed open and took the broker past 1,024 descriptors (EMFILE).
    expect(figures.peak).toBeLessThanOrEqual(figures.baseline + broker.connectionLimit + 40);
    expect(figures.after).toBeLessThanOrEqual(figures.baseline + 10);
    // Reported: RSS 97 → 185 MB.
    expect(figures.rssAfter - figures.rssBefore).toBeLessThan(40);
  }, 180_000);
});
