import { describe, expect, it } from "vitest";
import { useFakeBotApi } from "../fakes/telegram/fakeBotApiFixture.js";
import { useNatsCluster } from "../helpers/cluster.js";
import { natsServerAvailable } from "../helpers/natsServer.js";
import { killWhilePending } from "../helpers/telegramKill.js";

// kill -9 of a Telegram broker on NATS while updates are pending, then a restart: every update is
// answered exactly once. Offsets are confirmed only once their events are in the turn stream, its
// msg-id (telegram:<event_id>) collapses what the dead broker had queued, and the delivery ledger
// keeps a re-run from sending twice. The sibling in npm test: telegramKill.test.ts (20 updates).

const available = natsServerAvailable();
const fake = useFakeBotApi();

describe.skipIf(!available)("Telegram broker killed with updates pending", () => {
  const nats = useNatsCluster();

  it("200 updates over 10 chats, kill -9 after a tenth is answered, restart: each answered exactly once", async () => {
    const run = await killWhilePending(nats, fake.api, 200, 10);
    console.log(`telegram kill -9 with 200 pending: ${run.beforeKill} answered before the kill, ${run.afterRestart} after the restart (${run.recovered} marked recovered), ${run.seconds.toFixed(1)} s`);
    expect(run.afterRestart).toBeGreaterThan(0);
  }, 300_000);
});
