import { describe, expect, it } from "vitest";
import { someConversations, useFakeSlack } from "../fakes/slack/slackFixture.js";
import { useNatsCluster } from "../helpers/cluster.js";
import { natsServerAvailable } from "../helpers/natsServer.js";
import { until } from "../helpers/stack.js";
import { holds, logged, sleep, TTL_MS } from "../helpers/telegramScaleOut.js";

// Issue 39's NATS acceptance for Slack: of the edges that hold [slack], one keeps the app's Socket
// Mode connection — the holder of its receiver lease — and the others stand by (their sends still
// work). Real `turnstream run` processes over a real nats-server, the fake Slack in this process
// (it counts the sockets open at once).

const available = natsServerAvailable();
const slack = useFakeSlack();

describe.skipIf(!available)("Slack over NATS: one Socket Mode connection per app", () => {
  const nats = useNatsCluster();

  it(
    "2 edges + a worker: one edge holds the socket, the other stands by; kill -9 of the holder, the other connects within the lease TTL, never two sockets",
    async () => {
      const { fake } = slack;
      const { general, alice } = someConversations(fake);
      const cluster = await nats.start({
        gateway: false,
        bus: { prefix: "slkill", lease_ttl_secs: TTL_MS / 1000, ack_wait_secs: 3 },
        config: {
          slack: { bot_token: fake.botToken, app_token: fake.appToken, api_root: fake.apiUrl },
          queue: { mode: "followup", debounce_ms: 0 },
          delivery: { mode: "text" },
          reactions: { enabled: false },
        },
      });
      const worker = await cluster.add("worker");
      const edges = [await cluster.add("edge"), await cluster.add("edge")];
      expect(await until(() => edges.some(holds) && edges.some((edge) => logged(edge, "receiver standing by").length > 0) && fake.socket.openConnections === 1, 20_000)).toBe(true);
      const holder = edges.find(holds)!;
      const standby = edges.find((edge) => edge !== holder)!;
      expect(logged(holder, "receiver lease acquired")[0]).toMatchObject({ receiver: `slack.${fake.bot.appId}` });
      expect(logged(standby, "receiver standing by")[0]).toMatchObject({ reason: "held_elsewhere", receiver: `slack.${fake.bot.appId}` });

      const before = fake.from(alice).message(general.id, "@turnstream say before");
      expect(await until(() => fake.botTexts(general.id, { thread: before.ts })[0] === "before", 20_000)).toBe(true);

      const killedAt = Date.now();
      holder.kill9();
      await holder.exited;
      expect(await until(() => holds(standby) && logged(standby, "slack socket connected").length > 0, 4 * TTL_MS)).toBe(true);
      const connectedAt = Number(logged(standby, "slack socket connected").at(-1)!.time);
      console.log(`slack socket takeover after kill -9: connected after ${connectedAt - killedAt} ms (TTL ${TTL_MS} ms)`);
      // The dead holder's key lives out the TTL from its last renew; the stand-by takes it just after. A second of slack for a busy machine.
      expect(connectedAt - killedAt).toBeLessThanOrEqual(TTL_MS + 1_000);

      const after = fake.from(alice).message(general.id, "@turnstream say after");
      expect(await until(() => fake.botTexts(general.id, { thread: after.ts })[0] === "after", 20_000)).toBe(true);
      await sleep(1_000);
      expect(fake.botTexts(general.id, { thread: before.ts })).toEqual(["before"]);
      expect(fake.botTexts(general.id, { thread: after.ts })).toEqual(["after"]);
      expect(fake.socket.maxOpenConnections).toBe(1);
      expect(logged(worker, "receiver lease acquired")).toEqual([]);
    },
    120_000,
  );
});
