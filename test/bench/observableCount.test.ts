import { BehaviorSubject, defer, EMPTY, from, lastValueFrom, map, mergeMap, Observable, of, ReplaySubject, share, Subject, toArray } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { installObservableCounter, type ObservableCount, type ObservableCounter } from "../../bench/lib/observableCount.js";

let counter: ObservableCounter | undefined;
afterEach(() => {
  counter?.uninstall();
  counter = undefined;
});

/** What `build` constructs and subscribes, counted from a fresh counter. */
function count(build: () => unknown): ObservableCount {
  counter ??= installObservableCounter();
  counter.reset();
  build();
  return counter.read();
}

// Exact figures for rxjs 7.8's internals: if an upgrade changes how rxjs constructs Observables,
// these fail, and the benchmark's "Observables created per event" would need the counter fixed.
describe("installObservableCounter", () => {
  it("counts a creation function as one Observable, and a subscribe as one subscription", () => {
    expect(count(() => of(1))).toEqual({ observables: 1, subscriptions: 0 });
    expect(count(() => of(1).subscribe())).toEqual({ observables: 1, subscriptions: 1 });
    expect(count(() => new Observable(() => undefined))).toEqual({ observables: 1, subscriptions: 0 });
    expect(count(() => from(Promise.resolve(1)))).toEqual({ observables: 1, subscriptions: 0 });
  });

  it("counts each operator applied (lift) as one more Observable and one more subscription", () => {
    expect(count(() => of(1).pipe(map((x) => x + 1)))).toEqual({ observables: 2, subscriptions: 0 });
    expect(count(() => of(1).pipe(map((x) => x + 1)).subscribe())).toEqual({ observables: 2, subscriptions: 2 });
    // toArray is built on reduce: its lift, then reduce's own, at subscribe.
    expect(count(() => of(1).pipe(map((x) => x), map((x) => x), toArray()).subscribe())).toEqual({ observables: 5, subscriptions: 5 });
  });

  it("counts Observables made while values flow: mergeMap's inner ones, defer's factory", () => {
    expect(count(() => of(1, 2, 3).pipe(mergeMap((x) => of(x))).subscribe())).toEqual({ observables: 5, subscriptions: 5 });
    expect(count(() => defer(() => of(1)))).toEqual({ observables: 1, subscriptions: 0 });
    expect(count(() => defer(() => of(1)).subscribe())).toEqual({ observables: 2, subscriptions: 2 });
  });

  it("counts a Subject of any kind as one, a Subject's lift and asObservable as one more", () => {
    expect(count(() => new Subject())).toEqual({ observables: 1, subscriptions: 0 });
    expect(count(() => new BehaviorSubject(0))).toEqual({ observables: 1, subscriptions: 0 });
    expect(count(() => new ReplaySubject(1))).toEqual({ observables: 1, subscriptions: 0 });
    expect(count(() => new Subject<number>().pipe(map((x) => x)))).toEqual({ observables: 2, subscriptions: 0 });
    expect(count(() => new Subject().asObservable())).toEqual({ observables: 2, subscriptions: 0 });
    expect(count(() => new Subject().subscribe())).toEqual({ observables: 1, subscriptions: 1 });
  });

  it("counts share's Subject when the first subscriber connects", () => {
    const shared = count(() => of(1).pipe(share()).subscribe());
    // of + lift(share), then at connect: the Subject, and the source subscribed through a SafeSubscriber.
    expect(shared).toEqual({ observables: 3, subscriptions: 3 });
  });

  it("counts nothing for constants and plain values", async () => {
    expect(count(() => EMPTY.subscribe())).toEqual({ observables: 0, subscriptions: 1 });
    const observable = of(1);
    counter?.reset();
    await expect(lastValueFrom(observable)).resolves.toBe(1);
    expect(counter?.read()).toEqual({ observables: 0, subscriptions: 1 });
  });

  it("leaves behaviour unchanged while installed, and puts the prototypes back on uninstall", async () => {
    const protoKeys = () => ["_subscribe", "source", "subscribe"].map((key) => Object.getOwnPropertyDescriptor(Observable.prototype, key));
    const before = protoKeys();
    const subject = new Subject<number>();
    counter = installObservableCounter();
    const seen: number[] = [];
    subject.pipe(map((x) => x * 2)).subscribe((x) => seen.push(x));
    subject.next(1);
    await expect(lastValueFrom(of(1, 2, 3).pipe(mergeMap((x) => from(Promise.resolve(x))), toArray()))).resolves.toEqual([1, 2, 3]);
    counter.uninstall();
    counter = undefined;
    subject.next(2);
    expect(seen).toEqual([2, 4]);
    expect(protoKeys()).toEqual(before);
    expect(Object.getOwnPropertyDescriptor(Subject.prototype, "observers")).toBeUndefined();
  });

  it("refuses a second counter while one is installed", () => {
    counter = installObservableCounter();
    expect(() => installObservableCounter()).toThrow(/already installed/);
  });
});
