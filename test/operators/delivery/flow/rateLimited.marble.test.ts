import { describe, it } from "vitest";
import { rateLimited, type BucketRef } from "../../../../operators/delivery/flow/rateLimited.js";
import type { BucketLimit } from "../../../../operators/delivery/flow/tokenBucket.js";
import { testScheduler } from "../../../helpers/marbles.js";

const perSecond: BucketLimit = { messages: 1, perSecs: 1, burst: 1 };

/** Values named `<conversation><n>`: each counts against its conversation's bucket, and all against the bot's when given. */
const buckets =
  (conversation: BucketLimit, bot?: BucketLimit) =>
  (value: string): BucketRef[] => [{ key: `c:${value[0]}`, limit: conversation }, ...(bot === undefined ? [] : [{ key: "bot", limit: bot }])];

describe("rateLimited (marbles)", () => {
  it("one conversation at 1 per second: three at once leave 1 s apart, in order", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold("(abc)", { a: "x1", b: "x2", c: "x3" });
      expectObservable(source.pipe(rateLimited({ buckets: buckets(perSecond) }))).toBe("a 999ms b 999ms c", { a: "x1", b: "x2", c: "x3" });
    });
  });

  it("conversations do not wait for each other", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold("(abc)", { a: "x1", b: "y1", c: "x2" });
      expectObservable(source.pipe(rateLimited({ buckets: buckets(perSecond) }))).toBe("(ab) 996ms c", { a: "x1", b: "y1", c: "x2" });
    });
  });

  it("the bot's bucket holds across conversations: 2 per second in all, whatever the conversations allow", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold("(abcd)", { a: "w1", b: "x1", c: "y1", d: "z1" });
      const bot: BucketLimit = { messages: 2, perSecs: 1, burst: 2 };
      // Not the token bucket's c at 500 ms: the second before 1000 ms already holds two.
      expectObservable(source.pipe(rateLimited({ buckets: buckets(perSecond, bot) }))).toBe("(ab) 996ms (cd)", { a: "w1", b: "x1", c: "y1", d: "z1" });
    });
  });

  it("passes a paced turn unshaped when the limit allows its burst: three bubbles 400 ms apart under 3 per 3 s, burst 3", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold("a 399ms b 399ms c|", { a: "x1", b: "x2", c: "x3" });
      const limit: BucketLimit = { messages: 3, perSecs: 3, burst: 3 };
      expectObservable(source.pipe(rateLimited({ buckets: buckets(limit) }))).toBe("a 399ms b 399ms c|", { a: "x1", b: "x2", c: "x3" });
    });
  });

  it("a value with no bucket goes at once; completion waits for the last held value; an error passes", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold("(ab|)", { a: "x1", b: "x2" });
      expectObservable(source.pipe(rateLimited({ buckets: (v) => (v === "x1" ? [] : buckets(perSecond)(v)) }))).toBe("(ab|)", { a: "x1", b: "x2" });
      const held = cold("(ab|)", { a: "x1", b: "x2" });
      expectObservable(held.pipe(rateLimited({ buckets: buckets(perSecond) }))).toBe("a 999ms (b|)", { a: "x1", b: "x2" });
      expectObservable(cold("a #", { a: "x1" }).pipe(rateLimited({ buckets: buckets(perSecond) }))).toBe("a #", { a: "x1" });
    });
  });

  it("forgets full buckets past maxKeys, and a forgotten bucket is a full one", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      // 3 conversations, room for 2: by the time the third arrives the first two are full again.
      const source = cold("a 1999ms b 1999ms c 1999ms d", { a: "x1", b: "y1", c: "z1", d: "x2" });
      expectObservable(source.pipe(rateLimited({ buckets: buckets(perSecond), maxKeys: 2 }))).toBe("a 1999ms b 1999ms c 1999ms d", { a: "x1", b: "y1", c: "z1", d: "x2" });
    });
  });

  it("unsubscribing drops what still waits", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold("(ab)", { a: "x1", b: "x2" });
      expectObservable(source.pipe(rateLimited({ buckets: buckets(perSecond) })), "^ 500ms !").toBe("a", { a: "x1" });
    });
  });
});
