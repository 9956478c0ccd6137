import { describe, expect, it } from "vitest";
import { OrderedAppends } from "../../src/edge/orderedAppends.js";

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
    (item, _key, done) => {
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
      (item, _key, done) => {
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

  it("hands each append its key, computed once per value", () => {
    let keyed = 0;
    const keys: string[] = [];
    const appends = new OrderedAppends<Item>(
      (item) => {
        keyed += 1;
        return item.key;
      },
      (_item, key, done) => {
        keys.push(key);
        done();
      },
    );
    appends.push({ key: "a", n: 1 });
    appends.push({ key: "b", n: 1 });
    expect(keys).toEqual(["a", "b"]);
    expect(keyed).toBe(2);
  });

  it("queues a push of the same key made from inside its synchronous append behind it", () => {
    const order: string[] = [];
    const appends = new OrderedAppends<Item>(
      (item) => item.key,
      (item, _key, done) => {
        order.push(`start ${item.key}${item.n}`);
        if (item.key === "a" && item.n === 1) {
          appends.push({ key: "a", n: 2 }); // re-entrant: must wait, not run nested inside a1
          appends.push({ key: "b", n: 1 }); // another key runs at once
        }
        order.push(`end ${item.key}${item.n}`);
        done();
      },
    );
    appends.push({ key: "a", n: 1 });
    expect(order).toEqual(["start a1", "start b1", "end b1", "end a1", "start a2", "end a2"]);
    expect(appends.busy).toBe(0);
  });

  it("keeps a key busy when its append outlives its call, with a re-entrant push queued behind it", () => {
    const started: Item[] = [];
    const held = new Map<Item, () => void>();
    const a1 = { key: "a", n: 1 };
    const a2 = { key: "a", n: 2 };
    const a3 = { key: "a", n: 3 };
    const appends = new OrderedAppends<Item>(
      (item) => item.key,
      (item, _key, done) => {
        started.push(item);
        if (item === a1) appends.push(a2); // from inside a1's call, which returns before a1 is done
        held.set(item, done);
      },
    );
    appends.push(a1);
    appends.push(a3);
    expect(started).toEqual([a1]);
    expect(appends.busy).toBe(1);
    held.get(a1)?.();
    expect(started).toEqual([a1, a2]);
    held.get(a2)?.();
    expect(started).toEqual([a1, a2, a3]);
    held.get(a3)?.();
    expect(appends.busy).toBe(0);
  });

  it("whenIdle waits for an append still inside its call (a re-entrant stop)", () => {
    let idle = 0;
    const appends = new OrderedAppends<Item>(
      (item) => item.key,
      (item, _key, done) => {
        if (item.n === 1) {
          appends.whenIdle(() => (idle += 1));
          expect(idle).toBe(0);
        }
        done();
      },
    );
    appends.push({ key: "a", n: 1 });
    expect(idle).toBe(1);
  });
});
