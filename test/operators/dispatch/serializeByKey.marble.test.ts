import { describe, expect, it } from "vitest";
import { delay, map, Observable, of, range, Subject, toArray } from "rxjs";
import { serializeByKey } from "../../../operators/dispatch/serializeByKey.js";
import { testScheduler } from "../../helpers/marbles.js";

// Values are "<key><id>": the first letter is the key, so "a1" and "a2" share a lane.
const keyOfValue = (value: string) => value.charAt(0);

describe("serializeByKey", () => {
  it("runs one key's work one at a time, in arrival order", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold("-a-b-c|", { a: "k1", b: "k2", c: "k3" });
      const out = source.pipe(serializeByKey(() => "same", (v) => of(v).pipe(delay(5))));
      expectObservable(out).toBe("------a----b----(c|)", { a: "k1", b: "k2", c: "k3" });
    });
  });

  it("runs different keys concurrently", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold("-a-b|", { a: "a1", b: "b1" });
      const out = source.pipe(serializeByKey(keyOfValue, (v) => of(v).pipe(delay(5))));
      expectObservable(out).toBe("------a-(b|)", { a: "a1", b: "b1" });
    });
  });

  it("keeps order where groupBy duration-eviction would not (slow first value, fast second)", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const cost: Record<string, number> = { a1: 10, a2: 1 };
      const source = cold("a----b|", { a: "a1", b: "a2" });
      const out = source.pipe(serializeByKey(keyOfValue, (v) => of(v).pipe(delay(cost[v] ?? 0))));
      expectObservable(out).toBe("----------a(b|)", { a: "a1", b: "a2" });
    });
  });

  it("subscribes each value's work only when the previous one of its key has completed", () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const work1 = cold("---x|");
      const work2 = cold("--y|");
      const works: Record<string, Observable<string>> = { a1: work1, a2: work2 };
      const source = hot("-a-b-|", { a: "a1", b: "a2" });
      const out = source.pipe(serializeByKey(keyOfValue, (v) => works[v] ?? of("?")));
      expectObservable(out).toBe("----x--y|");
      expectSubscriptions(work1.subscriptions).toBe("-^---!");
      expectSubscriptions(work2.subscriptions).toBe("-----^--!");
    });
  });

  it("emits everything a work emits, and completes only after every lane drained", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold("-a|", { a: "a1" });
      const out = source.pipe(serializeByKey(keyOfValue, () => cold("-x-y---|")));
      expectObservable(out).toBe("--x-y---|");
    });
  });

  it("completes at once on an empty source", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold("---|").pipe(serializeByKey(keyOfValue, (v: string) => of(v)))).toBe("---|");
    });
  });

  it("starts a key afresh after its lane went idle", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold("a-----b|", { a: "a1", b: "a2" });
      const out = source.pipe(serializeByKey(keyOfValue, (v) => of(v).pipe(delay(2))));
      expectObservable(out).toBe("--a-----(b|)", { a: "a1", b: "a2" });
    });
  });

  it("errors when the source errors and cancels running work", () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const work = cold("-----x|");
      const source = hot("-a--#", { a: "a1" });
      expectObservable(source.pipe(serializeByKey(keyOfValue, () => work))).toBe("----#");
      expectSubscriptions(work.subscriptions).toBe("-^--!");
    });
  });

  it("errors when a work errors and cancels the other keys' work", () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const failing = cold("--#", undefined, new Error("agent died"));
      const slow = cold("------x|");
      const source = hot("-a-b--", { a: "a1", b: "b1" });
      const out = source.pipe(serializeByKey(keyOfValue, (v) => (v === "b1" ? failing : slow)));
      expectObservable(out).toBe("-----#", undefined, new Error("agent died"));
      expectSubscriptions(slow.subscriptions).toBe("-^---!");
    });
  });

  it("errors when keyOf throws", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const boom = new Error("no key");
      const keyOf = (): string => {
        throw boom;
      };
      expectObservable(cold("-a|").pipe(serializeByKey(keyOf, (v: string) => of(v)))).toBe("-#", undefined, boom);
    });
  });

  it("cancels running work and drops queued values on unsubscribe", () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const work = cold("----x|");
      const source = hot("-a-b----", { a: "a1", b: "a2" });
      const out = source.pipe(serializeByKey(keyOfValue, () => work));
      expectObservable(out, "^--!").toBe("---");
      expectSubscriptions(work.subscriptions).toBe("-^-!");
    });
  });
});

describe("serializeByKey without a scheduler", () => {
  it("drains a long queue of synchronous work without growing the stack", async () => {
    const pending = new Subject<number>();
    const source = new Subject<number>();
    const done = source.pipe(
      serializeByKey(
        () => "one",
        (n) => (n === 0 ? pending : of(n)),
      ),
      toArray(),
    );
    const result = new Promise<number[]>((resolve) => done.subscribe(resolve));
    source.next(0);
    for (let n = 1; n <= 100_000; n++) source.next(n);
    source.complete();
    pending.next(0);
    pending.complete();
    const values = await result;
    expect(values).toHaveLength(100_001);
    expect(values.every((v, i) => v === i)).toBe(true);
  });

  it("keeps order when a downstream subscriber feeds the source re-entrantly", () => {
    const source = new Subject<string>();
    const seen: string[] = [];
    source.pipe(serializeByKey(keyOfValue, (v) => of(v))).subscribe((v) => {
      seen.push(v);
      if (v === "a1") source.next("a3");
    });
    source.next("a1");
    source.next("a2");
    expect(seen).toEqual(["a1", "a3", "a2"]);
  });

  it("holds per-key order for any interleaving of keys", () => {
    const seen = new Map<string, number[]>();
    range(0, 3000)
      .pipe(
        map((n) => ({ key: `k${n % 7}`, n })),
        serializeByKey(
          (v) => v.key,
          (v) => of(v),
        ),
      )
      .subscribe((v) => seen.set(v.key, [...(seen.get(v.key) ?? []), v.n]));
    expect(seen.size).toBe(7);
    for (const ns of seen.values()) expect(ns).toEqual([...ns].sort((a, b) => a - b));
  });
});
