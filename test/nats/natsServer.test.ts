import { existsSync } from "node:fs";
import { connect } from "node:net";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect as natsConnect } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { natsServerAvailable, startNatsServer, type NatsServer } from "../helpers/natsServer.js";

/** The INFO line a NATS server greets every client with. */
function readInfo(port: number): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let buffer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      const end = buffer.indexOf("\r\n");
      if (end === -1) return;
      socket.destroy();
      const line = buffer.slice(0, end);
      if (!line.startsWith("INFO ")) reject(new Error(`unexpected greeting: ${line}`));
      else resolve(JSON.parse(line.slice(5)) as Record<string, unknown>);
    });
    socket.on("error", reject);
  });
}

// The harness every NATS suite builds on: a private server per suite, on a free port, with
// JetStream in a temporary directory. Runs wherever nats-server is installed; fails CI where not.
describe.skipIf(!natsServerAvailable())("nats-server test harness", () => {
  let server: NatsServer;
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("starts a JetStream-enabled 2.x server on its own loopback port", async () => {
    expect(server.port).not.toBe(4222);
    expect(server.version).toMatch(/^2\.\d+\.\d+/);
    const info = await readInfo(server.port);
    expect(info).toMatchObject({ jetstream: true, port: server.port, version: server.version });
  });

  it("stops the server and removes its storage", async () => {
    const other = await startNatsServer();
    expect(existsSync(other.storeDir)).toBe(true);
    await other.stop();
    expect(other.process.exitCode !== null || other.process.signalCode !== null).toBe(true);
    expect(existsSync(other.storeDir)).toBe(false);
    await expect(readInfo(other.port)).rejects.toThrow();
  });

  it("restarts on the same port with the same JetStream store", async () => {
    const restarting = await startNatsServer();
    try {
      const before = { url: restarting.url, pid: restarting.process.pid };
      const nc = await natsConnect({ servers: restarting.url });
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: "kept", subjects: ["kept.>"] });
      await jsm.jetstream().publish("kept.a", "survives");
      await nc.close();

      await restarting.restart();
      expect(restarting.url).toBe(before.url);
      expect(restarting.process.pid).not.toBe(before.pid);
      expect(existsSync(restarting.storeDir)).toBe(true);
      const again = await natsConnect({ servers: restarting.url });
      try {
        const info = await (await jetstreamManager(again)).streams.info("kept");
        expect(info.state.messages).toBe(1);
      } finally {
        await again.close();
      }
    } finally {
      await restarting.stop();
    }
    expect(existsSync(restarting.storeDir)).toBe(false);
  });

  it("passes extra arguments to nats-server", async () => {
    const guarded = await startNatsServer({ args: ["--auth", "harness-token"] });
    try {
      expect(await readInfo(guarded.port)).toMatchObject({ auth_required: true });
    } finally {
      await guarded.stop();
    }
  });
});
