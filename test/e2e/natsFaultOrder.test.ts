import { describe, it } from "vitest";
import { useNatsCluster } from "../helpers/cluster.js";
import { natsServerAvailable } from "../helpers/natsServer.js";
import { orderAcrossFaults } from "../helpers/natsFaultOrder.js";

// The 800-event run with a 10 s pause is natsFaultOrder.load.test.ts.
describe.skipIf(!natsServerAvailable())("per-session order over NATS faults", () => {
  const nats = useNatsCluster();

  it("nats-server paused (SIGSTOP 3 s), then killed (-9) and restarted on its store, during traffic: every event answered once, in order per session", async () => {
    await orderAcrossFaults(nats, { sessions: 10, perSession: 15, everyMs: 40, faultAfterMs: 1_000, pauseMs: 3_000 });
  }, 120_000);
});
