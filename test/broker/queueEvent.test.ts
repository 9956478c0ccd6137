import { describe, expect, it } from "vitest";
import { VirtualTimeScheduler, type Observable } from "rxjs";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import type { Bus, PersistAck, PersistOptions } from "../../src/bus/bus.js";
import { MemoryBus } from "../../src/bus/memoryBus.js";
import { queueEvent, turnMsgId, type QueueOutcome } from "../../src/broker/queueEvent.js";
import { gatewayEvent } from "../helpers/events.js";
import { captureLogs } from "../helpers/logCapture.js";

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
