import { describe, expect, it } from "vitest";
import { InboundDedupe, inboundDedupeKey } from "../../../operators/ingress/inboundDedupe.js";

const minutes = (n: number) => n * 60_000;

describe("inboundDedupeKey", () => {
  it("is (platform, channel, thread, message_id)", () => {
    expect(inboundDedupeKey({ platform: "telegram", channel: { id: "c1", type: "dm" }, message_id: "42" })).toBe('["telegram","c1","","42"]');
    expect(inboundDedupeKey({ platform: "discord", channel: { id: "555", type: "group", thread_id: "777" }, message_id: "99" })).toBe(
      '["discord","555","777","99"]',
    );
  });

  it("is absent without a message_id: never deduplicated", () => {
    expect(inboundDedupeKey({ platform: "slack", channel: { id: "C1", type: "dm" }, message_id: "" })).toBeUndefined();
  });
});

describe("InboundDedupe (claim / commit / release)", () => {
  it("expires from the refreshed time (TTL 20 min: false, true, false)", () => {
    const dedupe = new InboundDedupe({ ttlMs: minutes(20), max: 5000 });
    const t0 = 1_000_000;
    expect(dedupe.claim("k", t0)).toBe("claimed");
    dedupe.commit("k", t0);
    expect(dedupe.claim("k", t0 + 1_000)).toBe("duplicate");
    // The redelivery at t0+1s refreshed the window: just under 20 min later it is still a duplicate…
    expect(dedupe.claim("k", t0 + 1_000 + minutes(20) - 1)).toBe("duplicate");
    // …and 20 min after the last sighting it runs again.
    expect(dedupe.claim("k", t0 + 1_000 + minutes(20) - 1 + minutes(20))).toBe("claimed");
  });

  it("keeps at most max committed keys, oldest out (max 2: a, b, c)", () => {
    const dedupe = new InboundDedupe({ ttlMs: Number.POSITIVE_INFINITY, max: 2 });
    for (const key of ["a", "b", "c"]) {
      dedupe.claim(key, 0);
      dedupe.commit(key, 0);
    }
    expect([dedupe.peek("a", 0), dedupe.peek("b", 0), dedupe.peek("c", 0)]).toEqual([false, true, true]);
    expect(dedupe.size).toBe(2);
  });

  it("reports a copy that arrives while the first is still running as inflight", () => {
    const dedupe = new InboundDedupe({ ttlMs: minutes(20), max: 10 });
    expect(dedupe.claim("k", 0)).toBe("claimed");
    expect(dedupe.claim("k", 10)).toBe("inflight");
  });

  it("releases a failed turn's key so a redelivery can run it", () => {
    const dedupe = new InboundDedupe({ ttlMs: minutes(20), max: 10 });
    expect(dedupe.claim("k", 0)).toBe("claimed");
    dedupe.release("k");
    expect(dedupe.claim("k", 10)).toBe("claimed");
  });

  it("does not refresh on peek", () => {
    const dedupe = new InboundDedupe({ ttlMs: 100, max: 10 });
    dedupe.claim("k", 0);
    dedupe.commit("k", 0);
    expect(dedupe.peek("k", 50)).toBe(true);
    expect(dedupe.peek("k", 100)).toBe(false);
  });

  it("lets an owner claim its own in-flight key again; another owner gets inflight", () => {
    const dedupe = new InboundDedupe({ ttlMs: minutes(20), max: 10 });
    expect(dedupe.claim("k", 0, "telegram:e1")).toBe("claimed");
    expect(dedupe.claim("k", 10, "telegram:e1")).toBe("claimed");
    expect(dedupe.claim("k", 20, "telegram:e2")).toBe("inflight");
    expect(dedupe.claim("k", 30)).toBe("inflight"); // no owner: never the same one
  });

  it("releases an owned key only for its owner; without an owner, always", () => {
    const dedupe = new InboundDedupe({ ttlMs: minutes(20), max: 10 });
    dedupe.claim("k", 0, "telegram:e1");
    dedupe.release("k", "telegram:e2");
    expect(dedupe.claim("k", 10, "telegram:e2")).toBe("inflight");
    dedupe.release("k", "telegram:e1");
    expect(dedupe.claim("k", 20, "telegram:e2")).toBe("claimed");
    dedupe.release("k");
    expect(dedupe.claim("k", 30, "telegram:e3")).toBe("claimed");
  });

  it("keeps nothing when the TTL or the capacity is 0 (dedupe off)", () => {
    const dedupe = new InboundDedupe({ ttlMs: 0, max: 10 });
    dedupe.claim("k", 0);
    dedupe.commit("k", 0);
    expect(dedupe.claim("k", 1)).toBe("claimed");
  });
});
