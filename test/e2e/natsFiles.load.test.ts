import { createHash } from "node:crypto";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { describe, expect, it } from "vitest";
// @ts-expect-error -- a plain ES module of the test agent, typed by its JSDoc only
import { pictureBytes } from "../../fixtures/agents/scenarios.mjs";
import { subjects } from "../../src/wire/subjects.js";
import { someChats, useFakeBotApi } from "../fakes/telegram/fakeBotApiFixture.js";
import { useNatsCluster } from "../helpers/cluster.js";
import { natsServerAvailable } from "../helpers/natsServer.js";
import { until } from "../helpers/stack.js";
import { logged, telegramDeployment } from "../helpers/telegramScaleOut.js";

// Issue 42 on NATS: the edge (which holds [telegram]) and the worker (which runs the agent) are
// separate `turnstream run` processes over a real nats-server with its default 1 MiB max_payload.
// The agent streams a 20 MB picture; it reaches the fake Bot API intact (as a document: Telegram
// takes photos up to 10 MB), having crossed the bus in the object store's chunks, and once the
// turn is over nothing of it is left in the bucket's stream.

const available = natsServerAvailable();
const fake = useFakeBotApi();
const SIZE = 20 * 1000 * 1000;
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

describe.skipIf(!available)("files over NATS: worker and edge in separate processes", () => {
  const nats = useNatsCluster();

  it(
    "a 20 MB picture arrives intact, and the file store holds nothing afterwards",
    async () => {
      const prefix = "tgfiles";
      const cluster = await nats.start(telegramDeployment(prefix, fake.api.root));
      const worker = await cluster.add("worker");
      const edge = await cluster.add("edge");
      await until(() => fake.api.callsOf("getUpdates").length > 0, 20_000);
      const { alice, dm } = someChats(fake.api);
      fake.api.from(alice).text(dm.id, `image ${SIZE}`);

      const file = () => fake.api.shown(dm.id).find((message) => message.file !== undefined)?.file;
      expect(await until(() => file() !== undefined, 90_000)).toBe(true);
      const arrived = file()!;
      expect(arrived.kind).toBe("document");
      expect(arrived.size).toBe(SIZE);
      expect(sha256(arrived.bytes)).toBe(sha256(pictureBytes(SIZE) as Buffer));
      // The send crossed the bus by name only; the worker's turn ended and removed the file.
      expect(await until(() => logged(worker, "turn complete").length > 0, 30_000)).toBe(true);
      expect(logged(edge, "agent file not sent")).toEqual([]);

      const nc = await connect({ servers: nats.server.url });
      try {
        const jsm = await jetstreamManager(nc);
        const stream = `OBJ_${subjects(prefix).filesBucket}`;
        // The turn removed its files as it ended: the bucket's stream holds no chunk, no marker.
        let messages = -1;
        for (let tries = 0; tries < 100 && messages !== 0; tries++) {
          messages = (await jsm.streams.info(stream)).state.messages;
          if (messages !== 0) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(messages).toBe(0);
      } finally {
        await nc.close();
      }
    },
    180_000,
  );
});
