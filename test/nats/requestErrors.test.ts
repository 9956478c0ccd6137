// nats.js 3.4.0 builds a RequestError ("cancelled", with a stack capture) at the end of every
// SUCCESSFUL request (nats.deno#614): one per JetStream append, KV read and KV write. turnstream
// fixes it with patches/@nats-io+nats-core+3.4.0.patch, applied by `npm install`/`npm ci`
// (postinstall). These cases fail when that fix is lost, e.g. after a nats.js upgrade.
import { RequestError, TimeoutError, type NatsConnection } from "@nats-io/transport-node";
import { firstValueFrom } from "rxjs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { NoRespondersError } from "../../src/bus/errors.js";
import { openBucket } from "../../src/bus/nats/buckets.js";
import { NatsBus } from "../../src/bus/nats/natsBus.js";
import { busSection } from "../../src/config/sections/bus.js";
import { subjects } from "../../src/wire/index.js";
import { natsServerAvailable, startNatsServer, type NatsServer } from "../helpers/natsServer.js";

const N = 200;
const LOST_FIX = "successful requests built errors: is patches/@nats-io+nats-core+3.4.0.patch applied (npm install)?";

/**
 * Records every Error built while `run` runs: each one whose constructor assigns `this.name` (as
 * every nats.js error class does) or calls `Error.captureStackTrace`. Restores both afterwards.
 */
async function errorsBuiltDuring(run: () => Promise<void>): Promise<string[]> {
  const built: string[] = [];
  const captureStackTrace = Error.captureStackTrace;
  Object.defineProperty(Error.prototype, "name", {
    configurable: true,
    get: () => "Error",
    set(this: Error, name: string) {
      built.push(`${name}: ${this.message}`);
      Object.defineProperty(this, "name", { value: name, writable: true, configurable: true });
    },
  });
  Error.captureStackTrace = (target: object, ctor?: Function) => {
    built.push(`captureStackTrace(${ctor?.name ?? "?"})`);
    captureStackTrace(target, ctor);
  };
  try {
    await run();
  } finally {
    Object.defineProperty(Error.prototype, "name", { value: "Error", writable: true, configurable: true, enumerable: false });
    Error.captureStackTrace = captureStackTrace;
  }
  return built;
}

/** Requests nats.js still tracks (its reply multiplexer's table): a request that settled must leave it. */
function pendingInMux(nc: NatsConnection): number {
  return (nc as unknown as { protocol: { muxSubscriptions: { size(): number } } }).protocol.muxSubscriptions.size();
}

describe.skipIf(!natsServerAvailable())("successful NATS requests build no Error (nats.deno#614 patch)", () => {
  let server: NatsServer;
  let bus: NatsBus;
  const prefix = "reqerr";
  const s = subjects(prefix);

  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterEach(async () => {
    await bus?.close();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it(`${N} JetStream appends, KV writes and reads, and bus requests: no Error built, nothing left pending`, async () => {
    bus = await NatsBus.connect({ bus: busSection.parse({ url: server.url, prefix }) });
    const kv = await openBucket(bus.connection, `${prefix}_ledger`);
    const answering = bus.subscribe<number>(`${prefix}.echo`).subscribe((msg) => msg.respond(msg.data));
    // Warm up outside the window: first-use paths (JetStream API checks, KV bucket info) are not the hot path.
    await firstValueFrom(bus.persist(s.turn(0), "warm", { msgId: "warm" }));
    await kv.put("warm", "1");
    await firstValueFrom(bus.request(`${prefix}.echo`, 0, { timeoutMs: 5_000 }));

    const built = await errorsBuiltDuring(async () => {
      for (let i = 0; i < N; i++) {
        const ack = await firstValueFrom(bus.persist(s.turn(i % 4), { i }, { msgId: `event:${i}` }));
        expect(ack.duplicate).toBe(false);
        await kv.put(`k${i % 16}`, String(i));
        expect((await kv.get(`k${i % 16}`))?.string()).toBe(String(i));
        expect(await firstValueFrom(bus.request(`${prefix}.echo`, i, { timeoutMs: 5_000 }))).toBe(i);
      }
    });
    answering.unsubscribe();

    expect({ built: built.length, first: built.slice(0, 3) }, LOST_FIX).toEqual({ built: 0, first: [] });
    expect(pendingInMux(bus.connection)).toBe(0);
  });

  it("the probe sees what a failing request builds, and failures keep their errors: no responders, timeout", async () => {
    bus = await NatsBus.connect({ bus: busSection.parse({ url: server.url, prefix }) });
    const nc = bus.connection;
    const silent = nc.subscribe(`${prefix}.silent`, { callback: () => undefined });
    let noResponders: unknown;
    let timedOut: unknown;
    let busNoResponders: unknown;
    const built = await errorsBuiltDuring(async () => {
      noResponders = await nc.request(`${prefix}.nobody`, "x", { timeout: 5_000 }).catch((err: unknown) => err);
      timedOut = await nc.request(`${prefix}.silent`, "x", { timeout: 100 }).catch((err: unknown) => err);
      busNoResponders = await firstValueFrom(bus.request(`${prefix}.nobody`, "x", { timeoutMs: 5_000 })).catch((err: unknown) => err);
    });
    silent.unsubscribe();

    expect(noResponders).toBeInstanceOf(RequestError);
    expect((noResponders as RequestError).isNoResponders()).toBe(true);
    expect(timedOut).toBeInstanceOf(TimeoutError);
    expect(busNoResponders).toBeInstanceOf(NoRespondersError);
    // Without these the first case could pass because the probe saw nothing at all.
    expect(built).toEqual(expect.arrayContaining([expect.stringMatching(/^RequestError: /), expect.stringMatching(/^TimeoutError: /)]));
    expect(pendingInMux(nc)).toBe(0);
  });
});
