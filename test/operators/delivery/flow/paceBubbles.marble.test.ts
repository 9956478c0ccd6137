import { describe, expect, it } from "vitest";
import { concat, defer, EMPTY, ignoreElements, of, throwError, type Observable, type SchedulerLike } from "rxjs";
import type { TestScheduler } from "rxjs/testing";
import { paceBubbles } from "../../../../operators/delivery/flow/paceBubbles.js";
import { testScheduler } from "../../../helpers/marbles.js";

/** A send that records when each bubble left (virtual ms) and is acked `ackMs(bubble)` later. */
function recordingSend(scheduler: TestScheduler, ackMs: (bubble: string) => number) {
  const departures: [string, number][] = [];
  const send = (b: string): Observable<string> =>
    defer(() => {
      departures.push([b, scheduler.now()]);
      return scheduler.createColdObservable(`${ackMs(b)}ms (${b}|)`);
    });
  return { send, departures };
}

describe("paceBubbles", () => {
  it("sends three bubbles ready at once at 0, 400 and 800 ms with instant acks", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const bubbles = cold("(abc|)");
      const out = bubbles.pipe(paceBubbles((b: string) => of(b), 400));
      expectObservable(out).toBe("a 399ms b 399ms (c|)");
    });
  });

  it("fast acks (50 ms): each gap is the delay, measured from the previous bubble's departure", () => {
    const scheduler = testScheduler();
    const { send, departures } = recordingSend(scheduler, () => 50);
    scheduler.run(({ cold, expectObservable }) => {
      const out = cold("(abc|)").pipe(paceBubbles(send, 400));
      // a leaves 0, acked 50; b leaves 400, acked 450; c leaves 800, acked 850.
      expectObservable(out).toBe("50ms a 399ms b 399ms (c|)");
    });
    expect(departures).toEqual([["a", 0], ["b", 400], ["c", 800]]);
  });

  it("acks slower than the delay (600 ms): each bubble leaves at the previous ack, never before", () => {
    const scheduler = testScheduler();
    const { send, departures } = recordingSend(scheduler, () => 600);
    scheduler.run(({ cold, expectObservable }) => {
      const out = cold("(abc|)").pipe(paceBubbles(send, 400));
      // a leaves 0, acked 600; b leaves 600, acked 1200; c leaves 1200, acked 1800.
      expectObservable(out).toBe("600ms a 599ms b 599ms (c|)");
    });
    expect(departures).toEqual([["a", 0], ["b", 600], ["c", 1200]]);
  });

  it("takes the later of the two bounds gap by gap: a slow ack, then a fast one", () => {
    const scheduler = testScheduler();
    const { send, departures } = recordingSend(scheduler, (b) => (b === "a" ? 700 : 10));
    scheduler.run(({ cold, expectObservable }) => {
      const out = cold("(abc|)").pipe(paceBubbles(send, 400));
      // a leaves 0, acked 700; b leaves at that ack, acked 710; c leaves 700 + 400.
      expectObservable(out).toBe("700ms a 9ms b 399ms (c|)");
    });
    expect(departures).toEqual([["a", 0], ["b", 700], ["c", 1100]]);
  });

  it("an ack exactly at the delay: the bubble leaves at that moment", () => {
    const scheduler = testScheduler();
    const { send, departures } = recordingSend(scheduler, () => 400);
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold("(ab|)").pipe(paceBubbles(send, 400))).toBe("400ms a 399ms (b|)");
    });
    expect(departures).toEqual([["a", 0], ["b", 400]]);
  });

  it("a bubble sent as several messages is paced from its last message's departure (departing())", () => {
    const scheduler = testScheduler();
    const left: [string, number][] = [];
    // Each bubble is two messages, each acked 50 ms after it leaves.
    const send = (b: string, _index: number, departing: () => void): Observable<string> =>
      concat(
        ...[1, 2].map((part) =>
          defer(() => {
            departing();
            left.push([`${b}${part}`, scheduler.now()]);
            return scheduler.createColdObservable("50ms |");
          }),
        ),
        of(b),
      );
    scheduler.run(({ cold, expectObservable }) => {
      // a1 leaves 0, a2 at 50, acked 100; b1 leaves 50 + 400.
      expectObservable(cold("(ab|)").pipe(paceBubbles(send, 400))).toBe("100ms a 449ms (b|)");
    });
    expect(left).toEqual([["a1", 0], ["a2", 50], ["b1", 450], ["b2", 500]]);
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

  it("a bubble arriving after a slow ack but before departure + delay waits for the rest of the delay", () => {
    const scheduler = testScheduler();
    const { send, departures } = recordingSend(scheduler, () => 100);
    scheduler.run(({ cold, expectObservable }) => {
      // a leaves 0, acked 100; b arrives at 250 and leaves at 400.
      expectObservable(cold("a 249ms b|").pipe(paceBubbles(send, 400))).toBe("100ms a 399ms (b|)");
    });
    expect(departures).toEqual([["a", 0], ["b", 400]]);
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

  it("abandons the rest when a send throws instead of returning: the throw is the output's error", () => {
    const called: string[] = [];
    testScheduler().run(({ cold, expectObservable }) => {
      const send = (b: string): Observable<string> => {
        called.push(b);
        if (b === "b") throw new Error("cannot send");
        return of(b);
      };
      expectObservable(cold("(abc|)").pipe(paceBubbles(send, 400))).toBe("a 399ms #", undefined, new Error("cannot send"));
    });
    expect(called).toEqual(["a", "b"]);
  });

  it("calls send as each bubble departs, not as it arrives: a send that reads the clock when called sees the departure", () => {
    const scheduler = testScheduler();
    const called: [string, number][] = [];
    scheduler.run(({ cold, expectObservable }) => {
      // No defer: the time is read when send is called. Acks take 600 ms, longer than the delay.
      const send = (b: string): Observable<string> => {
        called.push([b, scheduler.now()]);
        return cold(`600ms (${b}|)`);
      };
      expectObservable(cold("(abc|)").pipe(paceBubbles(send, 400))).toBe("600ms a 599ms b 599ms (c|)");
    });
    expect(called).toEqual([["a", 0], ["b", 600], ["c", 1200]]);
  });

  it("a failed ack after a slow wait abandons the rest the moment it fails", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const second = cold("50ms (b|)");
      const sends: Record<string, Observable<string>> = { a: cold("600ms #", undefined, new Error("ack timeout")), b: second };
      const out = cold("(ab|)").pipe(paceBubbles((b: string) => sends[b] ?? of("?"), 400));
      expectObservable(out).toBe("600ms #", undefined, new Error("ack timeout"));
      expectSubscriptions(second.subscriptions).toBe([]);
    });
  });

  it("errors with the source while a bubble waits: the waiting bubble is never sent", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const second = cold("(b|)");
      const sends: Record<string, Observable<string>> = { a: of("a"), b: second };
      const out = cold("ab 98ms #", undefined, new Error("agent failed")).pipe(paceBubbles((b: string) => sends[b] ?? of("?"), 400));
      expectObservable(out).toBe("a 99ms #", undefined, new Error("agent failed"));
      expectSubscriptions(second.subscriptions).toBe([]);
    });
  });

  it("completes only after the last bubble's ack when the source completed while bubbles waited", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const out = cold("(ab|)").pipe(paceBubbles((b: string) => cold(`50ms (${b}|)`), 400));
      expectObservable(out).toBe("50ms a 399ms (b|)");
    });
  });

  it("unsubscribing while a bubble waits cancels it; unsubscribing mid-send unsubscribes the send", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const waiting = cold("50ms (b|)");
      const sends: Record<string, Observable<string>> = { a: cold("50ms (a|)"), b: waiting };
      const out = cold("(ab|)").pipe(paceBubbles((b: string) => sends[b] ?? of("?"), 400));
      expectObservable(out, "^ 199ms !").toBe("50ms a");
      expectSubscriptions(waiting.subscriptions).toBe([]);

      const inFlight = cold("300ms (b|)");
      const slow: Record<string, Observable<string>> = { a: cold("50ms (a|)"), b: inFlight };
      const cut = cold("(ab|)").pipe(paceBubbles((b: string) => slow[b] ?? of("?"), 400));
      expectObservable(cut, "^ 499ms !").toBe("50ms a");
      expectSubscriptions(inFlight.subscriptions).toBe("400ms ^ 99ms !");
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

  it("never waits longer than the delay when the clock steps back after a departure", () => {
    const scheduler = testScheduler();
    let offset = 0;
    // The test scheduler's clock, stepped back an hour right after the first bubble left.
    const stepped: SchedulerLike = { now: () => scheduler.now() - offset, schedule: scheduler.schedule.bind(scheduler) };
    const send = (b: string) =>
      concat(
        of(b),
        defer(() => {
          offset = 3_600_000;
          return EMPTY;
        }).pipe(ignoreElements()),
      );
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold("(ab|)").pipe(paceBubbles(send, 400, stepped))).toBe("a 399ms (b|)");
    });
  });

  it("waits a gap of its own before each bubble when the delay is a function of the index", () => {
    const gaps = [0, 300, 50];
    const asked: number[] = [];
    const gap = (index: number): number => {
      asked.push(index);
      return gaps[index] ?? 0;
    };
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold("(abc|)").pipe(paceBubbles((b: string) => of(b), gap))).toBe("a 299ms b 49ms (c|)");
    });
    // Never asked for the first bubble: it leaves at once.
    expect(asked).toEqual([1, 2]);
  });

  it("paces a per-bubble gap from departure too: a slow ack past the gap sends at once", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const send = (b: string) => (b === "a" ? cold("500ms (x|)", { x: b }) : of(b));
      expectObservable(cold("(ab|)").pipe(paceBubbles(send, () => 200))).toBe("500ms (ab|)");
    });
  });
});
