import { describe, expect, it } from "vitest";
import { someGuild, TOKEN, useFakeDiscord } from "../fakes/discord/fakeDiscordFixture.js";
import { useNatsCluster } from "../helpers/cluster.js";
import { natsServerAvailable } from "../helpers/natsServer.js";
import { until } from "../helpers/stack.js";
import { holds, logged, sleep, TTL_MS } from "../helpers/telegramScaleOut.js";

// Issue 39's NATS acceptance for Discord: one gateway session per bot receives, so of the edges
// that hold [discord] one connects — the holder of the bot's receiver lease — and the others
// stand by (their sends still work). Real `turnstream run` processes over a real nats-server, the
// fake Discord in this process (it counts gateway sessions held at once).

const available = natsServerAvailable();
const t = useFakeDiscord();
/** The bot's id: the token's first part is its base64, public. */
const BOT_ID = Buffer.from(TOKEN.split(".")[0]!, "base64").toString();

describe.skipIf(!available)("Discord over NATS: one gateway session per bot", () => {
  const nats = useNatsCluster();

  it(
    "2 edges + a worker: one edge holds the gateway session, the other stands by; kill -9 of the holder, the other connects within the lease TTL, never two sessions",
    async () => {
      const { general, alice } = someGuild(t.fake);
      const cluster = await nats.start({
        gateway: false,
        bus: { prefix: "dckill", lease_ttl_secs: TTL_MS / 1000, ack_wait_secs: 3 },
        config: {
          discord: { bot_token: TOKEN, api_root: t.fake.api },
          queue: { mode: "followup", debounce_ms: 0 },
          delivery: { mode: "text" },
          reactions: { enabled: false },
        },
      });
      const worker = await cluster.add("worker");
      const edges = [await cluster.add("edge"), await cluster.add("edge")];
      expect(await until(() => edges.some(holds) && edges.some((edge) => logged(edge, "receiver standing by").length > 0) && t.fake.gateway.liveSessions === 1, 20_000)).toBe(true);
      const holder = edges.find(holds)!;
      const standby = edges.find((edge) => edge !== holder)!;
      expect(logged(holder, "receiver lease acquired")[0]).toMatchObject({ receiver: `discord.${BOT_ID}` });
      expect(logged(standby, "receiver standing by")[0]).toMatchObject({ reason: "held_elsewhere", receiver: `discord.${BOT_ID}` });

      const before = t.fake.from(alice).message(general.id, `<@${BOT_ID}> say before`);
      expect(await until(() => t.fake.botTexts(before.id)[0] === "before", 20_000)).toBe(true);

      // Discord admits one IDENTIFY per bot per 5 s, whichever process sends it (the fake answers a
      // second one op 9, as Discord does): a holder killed right after it connected holds the
      // stand-by's IDENTIFY back for the rest of that window, past the TTL. The takeover timed here is
      // the usual one, of a holder that connected a while ago.
      const identifiedAt = Number(logged(holder, "discord bot connected")[0]!.time);
      await sleep(Math.max(0, identifiedAt + 5_500 - Date.now()));
      const killedAt = Date.now();
      holder.kill9();
      await holder.exited;
      // The dead holder's key lives out the TTL from its last renew; the stand-by takes it just after
      // and identifies (Discord's IDENTIFY throttle allows it at once). A second of slack for a busy machine.
      expect(await until(() => holds(standby) && logged(standby, "discord bot connected").length > 0, 4 * TTL_MS)).toBe(true);
      const connectedAt = Number(logged(standby, "discord bot connected").at(-1)!.time);
      console.log(`discord gateway takeover after kill -9: connected after ${connectedAt - killedAt} ms (TTL ${TTL_MS} ms)`);
      expect(connectedAt - killedAt).toBeLessThanOrEqual(TTL_MS + 1_000);

      const after = t.fake.from(alice).message(general.id, `<@${BOT_ID}> say after`);
      expect(await until(() => t.fake.botTexts(after.id)[0] === "after", 20_000)).toBe(true);
      await sleep(1_000);
      expect(t.fake.botTexts(before.id)).toEqual(["before"]);
      expect(t.fake.botTexts(after.id)).toEqual(["after"]);
      expect(t.fake.gateway.maxConcurrentSessions).toBe(1);
      expect(logged(worker, "receiver lease acquired")).toEqual([]);
    },
    120_000,
  );
});
