import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { firstValueFrom, VirtualTimeScheduler, type Observable } from "rxjs";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { PAYLOAD_TOO_LARGE_STATUS } from "../../operators/ingress/frames/oversizeEvent.js";
import type { Bus, PersistAck, PersistOptions } from "../../src/bus/bus.js";
import { MemoryBus } from "../../src/bus/memoryBus.js";
import { NatsBus } from "../../src/bus/nats/natsBus.js";
import { EVENT_OVER_MAX_PAYLOAD_LOG, queueEvent, turnMsgId, type QueueOutcome } from "../../src/broker/queueEvent.js";
import { busSection } from "../../src/config/sections/bus.js";
import { subjects } from "../../src/wire/index.js";
import { gatewayEvent } from "../helpers/events.js";
import { captureLogs } from "../helpers/logCapture.js";
import { natsServerAvailable, startNatsServer, type NatsServer } from "../helpers/natsServer.js";

const subject = "turnstream.turn.0";

const event = (id: string): GatewayEvent => gatewayEvent({ event_id: id, platform: "telegram" });

/**
 * A real memory bus whose first `failures` appends fail, as a bus between servers does: through
 * `persist` (a stream, like NATS) or, with `now`, through `persistNow` (stored within the call).
 */
function flakyBus(failures: number, now = false): { bus: Bus; persisted: () => number } {
  const scheduler = new VirtualTimeScheduler();
  const memory = new MemoryBus({ scheduler });
  let left = failures;
  let persisted = 0;
  const subjectFor = (s: string) => {
    persisted += 1;
    if (left <= 0) return s;
    left -= 1;
    return "bad subject"; // fails with InvalidSubjectError
  };
  const bus = Object.create(memory, {
    persist: {
      value: <T>(s: string, data: T, options?: PersistOptions): Observable<PersistAck> => memory.persist(subjectFor(s), data, options),
    },
    persistNow: {
      value: now ? <T>(s: string, data: T, options?: PersistOptions): PersistAck => memory.persistNow(subjectFor(s), data, options) : undefined,
    },
  }) as Bus;
  return { bus, persisted: () => persisted };
}

function queue(bus: Bus, options: { stillRunning?: () => boolean; retryForMs?: number } = {}) {
  const { logger, records } = captureLogs();
  const outcomes: QueueOutcome[] = [];
  const run = (e: GatewayEvent) =>
    queueEvent(e, { bus, subject, logger, retryForMs: options.retryForMs ?? 30_000, stillRunning: options.stillRunning ?? (() => true) }, (o) => outcomes.push(o));
  return { run, outcomes, records };
}

describe("queueEvent", () => {
  it("reports an embedded append at once, and a repeat as a logged duplicate", () => {
    const { bus } = flakyBus(0);
    const { run, outcomes, records } = queue(bus);
    run(event("e1"));
    run(event("e1"));
    expect(outcomes).toEqual([
      { ok: true, ack: { seq: 1, duplicate: false } },
      { ok: true, ack: { seq: 1, duplicate: true } },
    ]);
    expect(records.filter((r) => r.msg === "duplicate event collapsed")).toMatchObject([{ reason: "duplicate", event_id: "e1" }]);
  });

  for (const now of [false, true]) {
    it(`retries a failed append with backoff on the bus scheduler, then reports the ack once (${now ? "persistNow, within the call" : "persist, a stream"})`, () => {
      const { bus, persisted } = flakyBus(2, now);
      const scheduler = bus.scheduler as VirtualTimeScheduler;
      const { run, outcomes, records } = queue(bus);
      run(event("e1"));
      expect(outcomes).toEqual([]);
      expect(records.filter((r) => r.msg === "queueing an event failed; retrying")).toMatchObject([{ reason: "queue_retry", attempt: 1, delayMs: 250 }]);
      scheduler.flush();
      expect(persisted()).toBe(3);
      expect(records.filter((r) => r.reason === "queue_retry").map((r) => r.delayMs)).toEqual([250, 500]);
      expect(outcomes).toEqual([{ ok: true, ack: { seq: 1, duplicate: false } }]);
    });
  }

  it("gives up once the broker stops running, reporting the error once", () => {
    const { bus } = flakyBus(5);
    const { run, outcomes } = queue(bus, { stillRunning: () => false });
    run(event("e1"));
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ ok: false });
  });

  it("gives up after retryForMs", () => {
    const { bus, persisted } = flakyBus(100);
    const { run, outcomes } = queue(bus, { retryForMs: 1_000 });
    run(event("e1"));
    (bus.scheduler as VirtualTimeScheduler).flush();
    expect(persisted()).toBe(4); // at 0, 250, 750 and 1,750 ms: past 1 s, so no fifth try
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ ok: false });
  });

  it("unsubscribing cancels a pending retry: no further attempt, no outcome", () => {
    const { bus, persisted } = flakyBus(1);
    const { run, outcomes } = queue(bus);
    const handle = run(event("e1"));
    handle.unsubscribe();
    (bus.scheduler as VirtualTimeScheduler).flush();
    expect(persisted()).toBe(1);
    expect(outcomes).toEqual([]);
  });

  it("uses platform:event_id as the message id", () => {
    expect(turnMsgId(event("e1"))).toBe("telegram:e1");
  });
});

// An event too big for the bus: a real nats-server that takes 64 KiB, the real NatsBus.
const smallServer = mkdtempSync(join(tmpdir(), "turnstream-queue-max-payload-"));
const smallConfig = join(smallServer, "nats.conf");
writeFileSync(smallConfig, "max_payload: 65536\n");
afterAll(() => rmSync(smallServer, { recursive: true, force: true }));

describe.skipIf(!natsServerAvailable())("queueEvent on a NATS server with max_payload 64 KiB", () => {
  let server: NatsServer;
  let bus: NatsBus;
  const names = subjects("small");
  beforeAll(async () => {
    server = await startNatsServer({ args: ["-c", smallConfig] });
    bus = await NatsBus.connect({ bus: busSection.parse({ url: server.url, prefix: "small" }) });
  });
  afterAll(async () => {
    await bus?.close();
    await server?.stop();
  });

  /** Queues `e` on partition 0 and resolves with its outcome and what was logged. */
  async function queued(e: GatewayEvent) {
    const { logger, records } = captureLogs();
    const outcome = await new Promise<QueueOutcome>((resolve) => queueEvent(e, { bus, subject: names.turn(0), logger, retryForMs: 30_000, stillRunning: () => true }, resolve));
    return { outcome, records };
  }
  const audio = (bytes: number) => ({ type: "audio", filename: "v.ogg", mime_type: "audio/ogg", data: "A".repeat(bytes), size: bytes });

  it("an event over max_payload is appended at once without its inline bytes, each attachment the not-delivered note; what it was stays", async () => {
    const big = gatewayEvent({ event_id: "big-1", history: true, content: { type: "text", text: "listen", attachments: [audio(100_000), audio(3), { ...audio(0), data: "" }] } });
    const started = performance.now();
    const { outcome, records } = await queued(big);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(outcome).toMatchObject({ ok: true, ack: { duplicate: false } });
    expect(records.filter((r) => r.reason === "queue_retry")).toEqual([]);
    expect(records.filter((r) => r.msg === EVENT_OVER_MAX_PAYLOAD_LOG)).toMatchObject([{ reason: "payload_too_large", event_id: "big-1", attachments: 2, maxPayloadBytes: 65_536 }]);
    const stored = await firstValueFrom(bus.consume<GatewayEvent>(names.turn(0), { durable: names.partitionConsumer(0) }));
    stored.ack();
    expect(stored.msgId).toBe("telegram:big-1");
    // Only the inline bytes went: a group-history event is still one, the text and every attachment's name and size stay.
    expect(stored.data).toEqual({
      ...big,
      content: {
        ...big.content,
        attachments: [
          { ...audio(100_000), data: "", status: PAYLOAD_TOO_LARGE_STATUS },
          { ...audio(3), data: "", status: PAYLOAD_TOO_LARGE_STATUS },
          { ...audio(0), data: "" },
        ],
      },
    });
  });

  it("an event too big even without inline bytes is refused at once, never retried", async () => {
    for (const e of [
      gatewayEvent({ event_id: "huge-1", text: "y".repeat(70_000) }),
      gatewayEvent({ event_id: "huge-2", content: { type: "text", text: "y".repeat(70_000), attachments: [audio(10_000)] } }),
    ]) {
      const started = performance.now();
      const { outcome, records } = await queued(e);
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(outcome).toMatchObject({ ok: false, err: { name: "PayloadTooLargeError", maxPayloadBytes: 65_536 } });
      expect(records.filter((r) => r.reason === "queue_retry")).toEqual([]);
    }
  });
});
