import { jetstreamManager } from "@nats-io/jetstream";
import { firstValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { BusSetupError } from "../../../src/bus/errors.js";
import { openSharedState } from "../../../src/state/kv/index.js";
import { natsServerAvailable } from "../../helpers/natsServer.js";
import { dedupeAsPromises, sessionsAsPromises } from "../contracts/storePromises.js";
import { natsKvFixture } from "./natsKv.js";

describe.skipIf(!natsServerAvailable())("openSharedState", () => {
  const nats = natsKvFixture();
  const config = (prefix: string, stateTtlSecs = 3600) => ({ bus: { prefix, state_ttl_secs: stateTtlSecs }, inbound: { dedupe_ttl_secs: 60 } });

  it("opens the four buckets of the prefix: triage and sessions without TTL, dedupe and ledger with state_ttl_secs", async () => {
    const nc = await nats.connect();
    await openSharedState(nc, config("acme.prod"));
    const jsm = await jetstreamManager(nc);
    const ttlMs = async (bucket: string) => (await jsm.streams.info(`KV_${bucket}`)).config.max_age / 1_000_000;
    expect(await ttlMs("acme_prod_triage")).toBe(0);
    expect(await ttlMs("acme_prod_sessions")).toBe(0);
    expect(await ttlMs("acme_prod_dedupe")).toBe(3_600_000);
    expect(await ttlMs("acme_prod_ledger")).toBe(3_600_000);
  });

  it("gives stores that share state between workers", async () => {
    const [one, two] = await Promise.all([1, 2].map(async () => openSharedState(await nats.connect(), config("shared"))));
    if (one === undefined || two === undefined) throw new Error("two workers expected");
    await sessionsAsPromises(one.sessions).set("telegram:1", "sess_a");
    await expect(sessionsAsPromises(two.sessions).get("telegram:1")).resolves.toBe("sess_a");
    const [oneDedupe, twoDedupe] = [dedupeAsPromises(one.dedupe), dedupeAsPromises(two.dedupe)];
    expect(await oneDedupe.claim("m", "telegram:e1", 0)).toBe("claimed");
    expect(await twoDedupe.claim("m", "telegram:e2", 1)).toBe("inflight");
    await oneDedupe.commit("m", 2);
    expect(await twoDedupe.claim("m", "telegram:e2", 60_001)).toBe("duplicate"); // [inbound] dedupe_ttl_secs = 60
    expect(await twoDedupe.claim("m", "telegram:e2", 60_001 + 60_000)).toBe("claimed");
    await expect(firstValueFrom(one.ledger.begin("telegram:e1", 0))).resolves.toBeUndefined();
    await expect(firstValueFrom(two.ledger.begin("telegram:e1", 1))).resolves.toMatchObject({ attempts: 1 });
    expect(await firstValueFrom(one.triage.compareAndSet("telegram:c", { count: 1 }, undefined))).toBe(true);
    expect((await firstValueFrom(two.triage.read("telegram:c")))?.state).toEqual({ count: 1 });
  });

  it("refuses to start against buckets made with another state_ttl_secs", async () => {
    const nc = await nats.connect();
    await openSharedState(nc, config("other", 3600));
    await expect(openSharedState(nc, config("other", 60))).rejects.toBeInstanceOf(BusSetupError);
  });
});
