import { AckPolicy, RetentionPolicy, type ConsumerConfig } from "@nats-io/jetstream";
import { describe, expect, it } from "vitest";
import { durableConflict, streamConflicts, type DurableSpec, type TurnStreamSpec } from "../../src/bus/nats/turnStream.js";

const stream: TurnStreamSpec = { name: "ts_turns", subjects: ["ts.turn.>"], duplicateWindowMs: 120_000 };
const durable: DurableSpec = { stream: "ts_turns", durable: "ts_p0", filter: "ts.turn.0", maxAckPending: 1, ackWaitMs: 30_000 };
const consumer = (fields: Partial<ConsumerConfig>) =>
  ({ ack_policy: AckPolicy.Explicit, filter_subject: "ts.turn.0", max_ack_pending: 1, ...fields }) as ConsumerConfig;

describe("streamConflicts", () => {
  it("accepts the stream this deployment would create", () => {
    expect(streamConflicts(stream, { subjects: ["ts.turn.>"], retention: RetentionPolicy.Workqueue, duplicate_window: 120_000_000_000 })).toEqual([]);
  });

  it("names every difference with both values", () => {
    expect(streamConflicts(stream, { subjects: ["ts.turn.*", "other"], retention: RetentionPolicy.Interest, duplicate_window: 2_000_000_000 })).toEqual([
      "subjects [other, ts.turn.*], not [ts.turn.>]",
      "retention interest, not workqueue",
      "duplicate window 2 s, not 120 s (bus.duplicate_window_secs)",
    ]);
  });
});

describe("durableConflict", () => {
  it("accepts a consumer with the same filter and maxAckPending, whatever its ack wait", () => {
    expect(durableConflict(durable, consumer({ ack_wait: 5_000_000_000 }))).toBeUndefined();
  });

  it("words a different filter or maxAckPending as the in-process bus does", () => {
    expect(durableConflict(durable, consumer({ filter_subject: "ts.turn.1" }))).toBe('consumes "ts.turn.1", not "ts.turn.0"');
    expect(durableConflict(durable, consumer({ max_ack_pending: 1000 }))).toBe("has maxAckPending 1000, not 1");
  });

  it("refuses push consumers and other ack policies", () => {
    expect(durableConflict(durable, consumer({ deliver_subject: "deliver.here" }))).toBe("is a push consumer, not a pull consumer");
    expect(durableConflict(durable, consumer({ ack_policy: AckPolicy.All }))).toBe("has ack policy all, not explicit");
  });
});
