import { describe, it } from "vitest";
import { of, throwError, type Observable } from "rxjs";
import { paceBubbles } from "../../../operators/delivery/paceBubbles.js";
import { testScheduler } from "../../helpers/marbles.js";

describe("paceBubbles", () => {
  it("sends three bubbles ready at once at 0, 400 and 800 ms with instant acks", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const bubbles = cold("(abc|)");
      const out = bubbles.pipe(paceBubbles((b: string) => of(b), 400));
      expectObservable(out).toBe("a 399ms b 399ms (c|)");
    });
  });

  it("measures each gap from the previous bubble's ack (50 ms acks)", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const send = (b: string) => cold(`50ms (${b}|)`);
      const out = cold("(abc|)").pipe(paceBubbles(send, 400));
      // a acked at 50; b leaves at 450, acked 500; c leaves at 900, acked 950.
      expectObservable(out).toBe("50ms a 449ms b 449ms (c|)");
    });
  });

  it("sends a bubble that arrives after the delay has passed at once (seqslow: 0 s, 2 s, 4 s with delay 0)", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const out = cold("a 1999ms b 1999ms c|").pipe(paceBubbles((b: string) => of(b), 0));
      expectObservable(out).toBe("a 1999ms b 1999ms c|");
    });
  });

  it("spaces bubbles that arrive faster than the delay", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const out = cold("a 99ms b 99ms c|").pipe(paceBubbles((b: string) => of(b), 400));
      expectObservable(out).toBe("a 399ms b 399ms (c|)");
    });
  });

  it("waits only for what is left of the delay when a bubble arrives part-way", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const out = cold("a 299ms b|").pipe(paceBubbles((b: string) => of(b), 400));
      expectObservable(out).toBe("a 399ms (b|)");
    });
  });

  it("abandons the rest when a send fails: a failed second send stops the third", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const third = cold("(c|)");
      const sends: Record<string, Observable<string>> = { a: of("a"), b: throwError(() => new Error("send failed")), c: third };
      const out = cold("(abc|)").pipe(paceBubbles((b: string) => sends[b] ?? of("?"), 400));
      expectObservable(out).toBe("a 399ms #", undefined, new Error("send failed"));
      expectSubscriptions(third.subscriptions).toBe([]);
    });
  });

  it("emits whatever each send emits, in order", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const out = cold("(ab|)").pipe(paceBubbles((b: string) => cold("(xy|)", { x: `${b}1`, y: `${b}2` }), 10));
      expectObservable(out).toBe("(wx) 6ms (yz|)", { w: "a1", x: "a2", y: "b1", z: "b2" });
    });
  });

  it("keeps separate pacing state per subscription", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const paced = cold("(ab|)").pipe(paceBubbles((b: string) => of(b), 100));
      expectObservable(paced).toBe("a 99ms (b|)");
      expectObservable(paced).toBe("a 99ms (b|)");
    });
  });

  it("completes with the source when there are no bubbles", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold("---|").pipe(paceBubbles((b: string) => of(b), 400))).toBe("---|");
    });
  });
});
