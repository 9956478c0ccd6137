import { describe, expect, it } from "vitest";
import { OrderedAppends } from "../../src/gateway/orderedAppends.js";

interface Item {
  readonly key: string;
  readonly n: number;
}

/** Appends that wait until the test finishes them, in any order. */
function held() {
  const started: Item[] = [];
  const finishers = new Map<Item, () => void>();
  const appends = new OrderedAppends<Item>(
    (item) => item.key,
    (item, done) => {
      started.push(item);
      finishers.set(item, done);
    },
  );
  const finish = (item: Item) => finishers.get(item)?.();
  return { appends, started, finish };
}

describe("OrderedAppends", () => {
  it("starts a key's next append only after the previous one is done, other keys side by side", () => {
    const { appends, started, finish } = held();
    const a1 = { key: "a", n: 1 };
    const a2 = { key: "a", n: 2 };
    const b1 = { key: "b", n: 1 };
    appends.push(a1);
    appends.push(a2);
    appends.push(b1);
    expect(started).toEqual([a1, b1]);
    finish(b1);
    expect(started).toEqual([a1, b1]);
    finish(a1);
    expect(started).toEqual([a1, b1, a2]);
    finish(a2);
    expect(appends.busy).toBe(0);
  });

  it("runs synchronous appends in a loop: 100,000 queued behind one key do not grow the stack", () => {
    let release: (() => void) | undefined;
    let count = 0;
    const appends = new OrderedAppends<Item>(
      (item) => item.key,
      (item, done) => {
        count += 1;
        if (item.n === 0) release = done;
        else done();
      },
    );
    appends.push({ key: "k", n: 0 });
    for (let n = 1; n <= 100_000; n++) appends.push({ key: "k", n });
    expect(count).toBe(1);
    release?.();
    expect(count).toBe(100_001);
    expect(appends.busy).toBe(0);
  });

  it("ignores a second `done` for the same value", () => {
    const { appends, started, finish } = held();
    const a1 = { key: "a", n: 1 };
    const a2 = { key: "a", n: 2 };
    const a3 = { key: "a", n: 3 };
    appends.push(a1);
    appends.push(a2);
    appends.push(a3);
    finish(a1);
    finish(a1);
    expect(started).toEqual([a1, a2]);
  });

  it("calls whenIdle at once when idle, else after the last append is done", () => {
    const { appends, finish } = held();
    let idle = 0;
    appends.whenIdle(() => (idle += 1));
    expect(idle).toBe(1);
    const a1 = { key: "a", n: 1 };
    const b1 = { key: "b", n: 1 };
    appends.push(a1);
    appends.push(b1);
    appends.whenIdle(() => (idle += 1));
    finish(a1);
    expect(idle).toBe(1);
    finish(b1);
    expect(idle).toBe(2);
  });
});
