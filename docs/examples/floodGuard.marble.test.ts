import { describe, expect, it } from "vitest";
import type { GatewayEvent } from "turnstream/operators";
import { createTestScheduler } from "turnstream/testing";
import { floodGuard } from "./floodGuard.js";

const from = (sender: string, text: string) =>
  ({ platform: "telegram", sender: { id: sender }, content: { text } }) as GatewayEvent;

describe("floodGuard", () => {
  it("admits one event per sender per window, reading time from the scheduler", () => {
    const scheduler = createTestScheduler(expect);
    scheduler.run(({ cold, expectObservable }) => {
      const values = { a: from("ann", "1"), b: from("ann", "2"), c: from("bob", "3"), d: from("ann", "4") };
      // ann at 0 ms, ann again at 100 ms (too soon), bob at 101 ms, ann at 1001 ms (window over).
      const events = cold("a 99ms bc 899ms d|", values);
      expectObservable(events.pipe(floodGuard(1_000))).toBe("a 99ms -c 899ms d|", values);
    });
  });
});
