import { afterAll, beforeAll, describe } from "vitest";
import { busSection } from "../../src/config/sections/bus.js";
import { MemoryBus } from "../../src/bus/memoryBus.js";
import { NatsBus } from "../../src/bus/nats/natsBus.js";
import { natsServerAvailable, startNatsServer, type NatsServer } from "../helpers/natsServer.js";
import { describeBusContract } from "./busContract.js";

describeBusContract("MemoryBus", async () => new MemoryBus());

describe.skipIf(!natsServerAvailable())("on nats-server", () => {
  let server: NatsServer;
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  describeBusContract("NatsBus", (prefix) => NatsBus.connect({ bus: busSection.parse({ url: server.url, prefix }) }));
});
