import { delay, of } from "rxjs";
import { describe, it } from "vitest";
import { concatLatest } from "../../../../operators/delivery/status/concatLatest.js";
import { testScheduler } from "../../../helpers/marbles.js";

/** Each value's work takes 10 frames (an `s…` value none) and emits the value. */
const work = (value: string) => (value.startsWith("s") ? of(value) : of(value).pipe(delay(10)));
const droppable = (value: string) => value.startsWith("e");

describe("concatLatest", () => {
  it("runs values one at a time, in order, like concatMap when nothing waits", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold("a 19ms b 19ms c|").pipe(concatLatest(work, droppable))).toBe("10ms a 19ms b 19ms (c|)");
    });
  });

  it("keeps only the newest droppable value waiting behind running work", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      // `a` runs 0–10; e1, e2, e3 arrive meanwhile: only e3 runs (10–20).
      const values = { a: "a", x: "e1", y: "e2", z: "e3" };
      expectObservable(cold("a-xyz|", values).pipe(concatLatest(work, droppable))).toBe("10ms a 9ms (z|)", values);
    });
  });

  it("never drops a value that must run, nor the droppable value waiting before it", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      // a runs 0–10; e1, then f (must run), then e2, e3: e1, f and e3 run, in order.
      const values = { a: "a", x: "e1", f: "f", y: "e2", z: "e3" };
      expectObservable(cold("a-xfyz|", values).pipe(concatLatest(work, droppable))).toBe("10ms a 9ms x 9ms f 9ms (z|)", values);
    });
  });

  it("runs work that finishes synchronously without waiting, and completes after the last", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const values = { a: "s1", b: "s2" };
      expectObservable(cold("ab|", values).pipe(concatLatest(work, droppable))).toBe("ab|", values);
    });
  });

  it("fails with the work's error", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const failing = (value: string) => (value === "b" ? cold("5ms #", {}, new Error("no")) : work(value));
      expectObservable(cold("ab|").pipe(concatLatest(failing, droppable))).toBe("10ms a 4ms #", undefined, new Error("no"));
    });
  });

  it("stops running work when unsubscribed", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const inner = cold("10ms (a|)");
      expectObservable(cold("a|").pipe(concatLatest(() => inner, droppable)), "^ 5ms !").toBe("");
      expectSubscriptions(inner.subscriptions).toBe("^ 5ms !");
    });
  });
});
