import { setImmediate as tick } from "node:timers/promises";
import { VirtualTimeScheduler } from "rxjs";
import { describe, expect, it } from "vitest";
import { PoolClosedError, PoolWaitTimeoutError, SessionWaitCancelledError } from "../../../src/acp/errors.js";
import { SessionSlots } from "../../../src/acp/pool/sessionSlots.js";

/** Lets every queued promise callback run. */
async function flush(): Promise<void> {
  await tick();
  await tick();
}

/** Tracks how a promise settled, without awaiting it. */
function track(promise: Promise<void>): { state: "pending" | "granted" | "failed"; error?: unknown } {
  const tracked: { state: "pending" | "granted" | "failed"; error?: unknown } = { state: "pending" };
  promise.then(
    () => (tracked.state = "granted"),
    (err: unknown) => {
      tracked.state = "failed";
      tracked.error = err;
    },
  );
  return tracked;
}

/**
 * SessionSlots over a stand-in for the pool's sessions (no processes): `idle` lists the sessions
 * marked idle; an eviction removes the session and frees its slot when the test settles `closes`.
 */
function slotsFor(maxSessions: number, waitTimeoutMs = 60_000) {
  const scheduler = new VirtualTimeScheduler();
  const idle = new Map<string, number>();
  const evicted: string[] = [];
  const closes: (() => void)[] = [];
  const slots = new SessionSlots({
    maxSessions,
    waitTimeoutMs,
    scheduler,
    idle: () => [...idle].map(([key, lastActive]) => ({ key, lastActive })),
    evict: (key) => {
      idle.delete(key);
      evicted.push(key);
      return new Promise<void>((resolve) => closes.push(resolve));
    },
  });
  /** Virtual time moves to `ms`, running every timer due by then. */
  const advanceTo = (ms: number) => {
    scheduler.schedule(() => undefined, ms - scheduler.now());
    scheduler.maxFrames = ms;
    scheduler.flush();
  };
  return { slots, idle, evicted, closes, advanceTo, scheduler };
}

describe("SessionSlots", () => {
  it("grants free slots at once, up to max_sessions", async () => {
    const { slots } = slotsFor(2);
    const a = track(slots.acquire("a"));
    const b = track(slots.acquire("b"));
    const c = track(slots.acquire("c"));
    await flush();
    expect([a.state, b.state, c.state]).toEqual(["granted", "granted", "pending"]);
    expect(slots.used).toBe(2);
    expect(slots.waiting).toBe(1);
  });

  it("hands freed slots to waiters oldest first across keys; a newcomer never overtakes", async () => {
    const { slots } = slotsFor(1);
    await slots.acquire("holder");
    const order: string[] = [];
    const wait = (key: string) => slots.acquire(key).then(() => order.push(key));
    const waits = [wait("a"), wait("b"), wait("c")];
    await flush();
    slots.release();
    await flush();
    expect(order).toEqual(["a"]);
    const late = wait("late");
    slots.release();
    slots.release();
    slots.release();
    await Promise.all([...waits, late]);
    expect(order).toEqual(["a", "b", "c", "late"]);
  });

  it("a session turning idle is suspended for the oldest waiter, whose slot comes once its agent is gone", async () => {
    const { slots, idle, evicted, closes } = slotsFor(1);
    await slots.acquire("busy");
    const waiter = track(slots.acquire("w"));
    slots.sessionIdle(); // nothing idle yet: nothing happens
    await flush();
    expect(evicted).toEqual([]);
    idle.set("busy", 5);
    slots.sessionIdle();
    await flush();
    expect(evicted).toEqual(["busy"]);
    expect(waiter.state).toBe("pending"); // the evicted agent still holds the slot
    expect(slots.used).toBe(1);
    closes[0]?.();
    await flush();
    expect(waiter.state).toBe("granted");
    expect(slots.used).toBe(1);
  });

  it("suspends the least recently active idle session, and one per waiter", async () => {
    const { slots, idle, evicted, closes } = slotsFor(3);
    await Promise.all([slots.acquire("x"), slots.acquire("y"), slots.acquire("z")]);
    const first = track(slots.acquire("w1"));
    const second = track(slots.acquire("w2"));
    idle.set("z", 30).set("x", 10).set("y", 20);
    slots.sessionIdle();
    slots.sessionIdle(); // a repeated wake suspends no more: the closing agents already cover both waiters
    expect(evicted).toEqual(["x", "y"]);
    closes.forEach((close) => close());
    await flush();
    expect([first.state, second.state]).toEqual(["granted", "granted"]);
    expect(idle.has("z")).toBe(true);
  });

  it("gives up at the wait timeout with PoolWaitTimeoutError, and a slot freed later goes to the next waiter", async () => {
    const { slots, advanceTo } = slotsFor(1, 1_000);
    await slots.acquire("holder");
    const early = track(slots.acquire("early"));
    advanceTo(400);
    const late = track(slots.acquire("late"));
    advanceTo(999);
    await flush();
    expect(early.state).toBe("pending");
    advanceTo(1_000);
    await flush();
    expect(early.state).toBe("failed");
    expect(early.error).toBeInstanceOf(PoolWaitTimeoutError);
    expect(early.error).toMatchObject({ maxSessions: 1, waitedMs: 1_000, message: "every agent session stayed busy for 1s; please try again" });
    expect(slots.waiting).toBe(1);
    slots.release();
    await flush();
    expect(late.state).toBe("granted");
    advanceTo(5_000); // a granted waiter's timer is gone
    await flush();
    expect(late.state).toBe("granted");
  });

  it("cancel(key) calls a wait off with SessionWaitCancelledError; an abort signal removes the waiter too", async () => {
    const { slots } = slotsFor(1);
    await slots.acquire("holder");
    const cancelled = track(slots.acquire("a"));
    const controller = new AbortController();
    const aborted = track(slots.acquire("b", controller.signal));
    const kept = track(slots.acquire("c"));
    expect(slots.cancel("nobody")).toBe(false);
    expect(slots.cancel("a")).toBe(true);
    controller.abort(new Error("unsubscribed"));
    await flush();
    expect(cancelled.error).toBeInstanceOf(SessionWaitCancelledError);
    expect(aborted.error).toMatchObject({ message: "unsubscribed" });
    expect(slots.waiting).toBe(1);
    slots.release();
    await flush();
    expect(kept.state).toBe("granted");
    expect(slots.used).toBe(1);
  });

  it("an acquire with an already aborted signal fails at once and takes nothing", async () => {
    const { slots } = slotsFor(1);
    const controller = new AbortController();
    controller.abort(new SessionWaitCancelledError());
    await expect(slots.acquire("a", controller.signal)).rejects.toBeInstanceOf(SessionWaitCancelledError);
    expect(slots.used).toBe(0);
  });

  it("close fails every waiter with PoolClosedError and refuses new ones", async () => {
    const { slots } = slotsFor(1);
    await slots.acquire("holder");
    const waiting = track(slots.acquire("a"));
    slots.close();
    await flush();
    expect(waiting.error).toBeInstanceOf(PoolClosedError);
    await expect(slots.acquire("b")).rejects.toBeInstanceOf(PoolClosedError);
  });

  it("never holds more than max_sessions slots under concurrent acquires, releases and evictions", async () => {
    const max = 2;
    const { slots, idle, closes } = slotsFor(max);
    let alive = 0; // sessions a granted key runs, idle sessions and closing agents: what holds an agent process
    let peak = 0;
    const granted: string[] = [];
    const keys = Array.from({ length: 12 }, (_, i) => `k${i}`);
    const runs = keys.map((key, i) =>
      slots.acquire(key).then(async () => {
        alive += 1;
        peak = Math.max(peak, alive);
        granted.push(key);
        for (let t = 0; t < (i % 3) + 1; t++) await tick();
        if (i % 4 === 0) {
          // its agent failed: the slot goes straight back
          alive -= 1;
          slots.release();
        } else {
          idle.set(key, i); // the turn ended: an idle session someone may suspend
          slots.sessionIdle();
        }
      }),
    );
    // Evicted agents close a few ticks later, in the order they were asked to.
    let settled = 0;
    while (granted.length < keys.length) {
      await tick();
      while (settled < closes.length) {
        alive -= 1;
        closes[settled++]?.();
      }
      expect(slots.used).toBeLessThanOrEqual(max);
    }
    await Promise.all(runs);
    expect(peak).toBeLessThanOrEqual(max);
    expect(granted).toEqual(keys);
    expect(slots.waiting).toBe(0);
  });
});
