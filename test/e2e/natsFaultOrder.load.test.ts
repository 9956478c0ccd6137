import { describe, it } from "vitest";
import { useNatsCluster } from "../helpers/cluster.js";
import { natsServerAvailable } from "../helpers/natsServer.js";
import { orderAcrossFaults } from "../helpers/natsFaultOrder.js";

describe.skipIf(!natsServerAvailable())("per-session order over NATS faults", () => {
  const nats = useNatsCluster();

  it("nats-server paused (SIGSTOP 10 s), then killed (-9) and restarted on its store, during traffic: every event answered once, in order per session", async () => {
    await orderAcrossFaults(nats, { sessions: 20, perSession: 40, everyMs: 20, faultAfterMs: 2_000, pauseMs: 10_000 });
  }, 240_000);
});
