import { describe, expect, it } from "vitest";
import type { SchedulerLike, Unsubscribable } from "rxjs";
import { LaneQueue, type LaneBatch, type SessionLanesOptions } from "../../../operators/dispatch/laneQueue.js";
import { testScheduler } from "../../helpers/marbles.js";

/** What the work was asked to run, and when (scheduler time). */
interface Ran {
  readonly at: number;
  readonly key: string;
  readonly items: readonly string[];
}

/**
 * Lanes keyed by a value's first letter, over work that takes `cost[value]` ms (0: over within the
 * call) on `scheduler`; `log` records every batch as it starts and every `done` as it is told.
 */
function lanesOn(scheduler: SchedulerLike, cost: Record<string, number>, options: Partial<SessionLanesOptions<string>> = {}) {
  const ran: Ran[] = [];
  const finished: Ran[] = [];
  const cancelled: string[] = [];
  const lanes = new LaneQueue<string>(
    (value) => value.slice(0, 1),
    (batch: LaneBatch<string>, key, done): Unsubscribable | undefined => {
      const entry = { at: scheduler.now(), key, items: batch.items };
      ran.push(entry);
      const ms = cost[batch.items[0] ?? ""] ?? 0;
      const finish = () => {
        finished.push({ ...entry, at: scheduler.now() });
        done();
      };
      if (ms === 0) {
        finish();
        return undefined;
      }
      const timer = scheduler.schedule(finish, ms);
      return { unsubscribe: () => (cancelled.push(batch.items.join("")), timer.unsubscribe()) };
    },
    { mode: "followup", quietMs: 0, cap: 10, drop: "old", describe: (value) => value, onDropped: () => undefined, scheduler, ...options },
  );
  return { lanes, ran, finished, cancelled };
}

describe("LaneQueue", () => {
  it("runs work that is over within the call without keeping a lane", () => {
    const scheduler = testScheduler();
    scheduler.run(() => {
      const { lanes, ran, finished } = lanesOn(scheduler, {});
      lanes.push("a1");
      lanes.push("a2");
      lanes.push("b1");
      expect(ran.map((r) => r.items.join(""))).toEqual(["a1", "a2", "b1"]);
      expect(finished).toHaveLength(3);
      expect(lanes.busy).toBe(0);
    });
  });

  it("queues a key's values behind its running work and runs them in order, other keys meanwhile", () => {
    const scheduler = testScheduler();
    scheduler.run(() => {
      const { lanes, ran, finished } = lanesOn(scheduler, { a1: 10, a2: 5, b1: 3 });
      lanes.push("a1");
      lanes.push("a2");
      lanes.push("a3");
      lanes.push("b1");
      expect(lanes.busy).toBe(2);
      scheduler.flush();
      expect(ran.map(({ at, items }) => [at, items.join("")])).toEqual([
        [0, "a1"],
        [0, "b1"],
        [10, "a2"],
        [15, "a3"],
      ]);
      expect(finished.map(({ at, items }) => [at, items.join("")])).toEqual([
        [3, "b1"],
        [10, "a1"],
        [15, "a2"],
        [15, "a3"],
      ]);
      expect(lanes.busy).toBe(0);
    });
  });

  it("collect: waits out the quiet window after the last arrival, then runs what waited as one batch", () => {
    const scheduler = testScheduler();
    scheduler.run(() => {
      const { lanes, ran } = lanesOn(scheduler, { a1: 10 }, { mode: "collect", quietMs: 5 });
      lanes.push("a1");
      scheduler.schedule(() => lanes.push("a2"), 2);
      scheduler.schedule(() => lanes.push("a3"), 8);
      scheduler.flush();
      // a1 is done at 10; a3 arrived at 8, so the quiet window ends at 13.
      expect(ran.map(({ at, items }) => [at, items.join(",")])).toEqual([
        [0, "a1"],
        [13, "a2,a3"],
      ]);
    });
  });

  it("a value pushed from inside its own key's work waits for that work", () => {
    const scheduler = testScheduler();
    scheduler.run(() => {
      const order: string[] = [];
      const lanes: LaneQueue<string> = new LaneQueue<string>(
        () => "k",
        (batch, _key, done) => {
          const value = batch.items[0] as string;
          order.push(`start ${value}`);
          if (value === "x") lanes.push("y");
          order.push(`end ${value}`);
          done();
          return undefined;
        },
        { mode: "followup", quietMs: 0, cap: 10, drop: "old", describe: (v) => v, onDropped: () => undefined, scheduler },
      );
      lanes.push("x");
      expect(order).toEqual(["start x", "end x", "start y", "end y"]);
      expect(lanes.busy).toBe(0);
    });
  });

  it("end: runs what waits without its quiet window, then says it is idle once", () => {
    const scheduler = testScheduler();
    scheduler.run(() => {
      const { lanes, ran } = lanesOn(scheduler, { a1: 10 }, { mode: "collect", quietMs: 50 });
      let idle = 0;
      lanes.push("a1");
      lanes.push("a2");
      lanes.end(() => (idle += 1));
      expect(idle).toBe(0);
      scheduler.flush();
      expect(ran.map(({ at, items }) => [at, items.join(",")])).toEqual([
        [0, "a1"],
        [10, "a2"],
      ]);
      expect(idle).toBe(1);
    });
  });

  it("end with nothing running is idle at once", () => {
    const { lanes } = lanesOn(testScheduler(), {});
    let idle = 0;
    lanes.end(() => (idle += 1));
    expect(idle).toBe(1);
  });

  it("close: cancels running work and quiet-window timers; nothing runs or finishes after", () => {
    const scheduler = testScheduler();
    scheduler.run(() => {
      const { lanes, ran, finished, cancelled } = lanesOn(scheduler, { a1: 10, b1: 10 }, { mode: "collect", quietMs: 5 });
      lanes.push("a1");
      lanes.push("a2");
      lanes.push("b1");
      scheduler.schedule(() => lanes.close(), 4);
      scheduler.flush();
      expect(cancelled.sort()).toEqual(["a1", "b1"]);
      expect(ran).toHaveLength(2);
      expect(finished).toHaveLength(0);
      lanes.push("c1");
      expect(ran).toHaveLength(2);
    });
  });

  it("a done told twice counts once", () => {
    const scheduler = testScheduler();
    scheduler.run(() => {
      const ran: string[] = [];
      let finishFirst: (() => void) | undefined;
      const lanes = new LaneQueue<string>(
        () => "k",
        (batch, _key, done) => {
          ran.push(batch.items.join(""));
          if (finishFirst === undefined) {
            finishFirst = done;
            return { unsubscribe: () => undefined };
          }
          return undefined; // never done: holds the lane
        },
        { mode: "followup", quietMs: 0, cap: 10, drop: "old", describe: (v) => v, onDropped: () => undefined, scheduler },
      );
      lanes.push("a");
      lanes.push("b");
      lanes.push("c");
      finishFirst?.();
      finishFirst?.();
      expect(ran).toEqual(["a", "b"]); // c waits behind b, not started by the second done
    });
  });

  it("throws what keyOf throws, and keeps working for later values", () => {
    const lanes = new LaneQueue<string>(
      (value) => {
        if (value === "bad") throw new Error("no key");
        return value;
      },
      (_batch, _key, done) => (done(), undefined),
      { mode: "followup", quietMs: 0, cap: 10, drop: "old", describe: (v) => v, onDropped: () => undefined, scheduler: testScheduler() },
    );
    expect(() => lanes.push("bad")).toThrow("no key");
    expect(() => lanes.push("good")).not.toThrow();
    expect(lanes.busy).toBe(0);
  });
});
