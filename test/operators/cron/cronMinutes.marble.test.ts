import { filter } from "rxjs";
import { describe, expect, it } from "vitest";
import { parseCronExpression } from "../../../operators/cron/cronExpression.js";
import { cronMinutes } from "../../../operators/cron/cronMinutes.js";
import { firesAt } from "../../../operators/cron/cronTime.js";
import { testScheduler } from "../../helpers/marbles.js";
import { clockOn, startingAt } from "./clocks.js";

const MINUTE = 60_000;
/** Minute boundaries by letter: a = 0, b = 1 min, c = 2 min, … */
const minutes = Object.fromEntries([..."abcdefghijkl"].map((letter, index) => [letter, index * MINUTE]));

describe("cronMinutes (marbles)", () => {
  it("emits the next boundary, at that boundary, then each minute: subscribed at 25 s, the first is 1:00", () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      expectObservable(cronMinutes(scheduler), "25s ^ 160s !").toBe("1m b 59999ms c 59999ms d", minutes);
    });
  });

  it("subscribed on a boundary, emits it at once (upstream sleeps 0 s there)", () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      expectObservable(cronMinutes(scheduler), "^ 150s !").toBe("a 59999ms b 59999ms c", minutes);
    });
  });

  it("emits at hh:mm:00.000 of a real clock's time, the boundary's own ms as the value", () => {
    const scheduler = testScheduler();
    const epoch = Date.parse("2026-05-11T08:59:12.345Z");
    scheduler.run(({ expectObservable }) => {
      expectObservable(cronMinutes(startingAt(scheduler, epoch)), "^ 2m !").toBe("47655ms a 59999ms b", {
        a: Date.parse("2026-05-11T09:00:00Z"),
        b: Date.parse("2026-05-11T09:01:00Z"),
      });
    });
  });

  it("unsubscribed, emits nothing more and leaves no timer behind", () => {
    const scheduler = testScheduler();
    const seen: number[] = [];
    scheduler.run(() => {
      const subscription = cronMinutes(scheduler).subscribe((minute) => seen.push(minute));
      scheduler.schedule(() => subscription.unsubscribe(), 90_000);
    });
    expect(seen).toEqual([0, MINUTE]);
    expect(scheduler.actions).toHaveLength(0);
  });

  it("a tick that comes 150 s late emits every boundary it passed, once, in order, then realigns", () => {
    const scheduler = testScheduler();
    // The second timer (the wait for 1:00) fires at 3:30.
    const late = clockOn(scheduler, { lateness: (index) => (index === 1 ? 150_000 : 0) });
    scheduler.run(({ expectObservable }) => {
      expectObservable(cronMinutes(late), "^ 5m !").toBe("a 209999ms (bcd) 29995ms e 59999ms f", minutes);
    });
  });

  it("a clock that jumps 5 min ahead emits each minute it jumped over: none is lost", () => {
    const scheduler = testScheduler();
    const jumping = clockOn(scheduler, { skew: (now) => (now >= 90_000 ? 300_000 : 0) });
    scheduler.run(({ expectObservable }) => {
      expectObservable(cronMinutes(jumping), "^ 190s !").toBe("a 59999ms b 59999ms (cdefgh) 59992ms i", minutes);
    });
  });

  it("a clock that goes 5 min back emits nothing twice: it waits until the clock reaches the next boundary again", () => {
    const scheduler = testScheduler();
    const rewound = clockOn(scheduler, { skew: (now) => (now >= 90_000 ? -300_000 : 0) });
    scheduler.run(({ expectObservable }) => {
      expectObservable(cronMinutes(rewound), "^ 500s !").toBe("a 59999ms b 359999ms c 59999ms d", minutes);
    });
  });

  it("is cold: each subscription aligns on its own", () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const ticks = cronMinutes(scheduler);
      expectObservable(ticks, "^ 70s !").toBe("a 59999ms b", minutes);
      expectObservable(ticks, "61s ^ 70s !").toBe("2m c", minutes);
    });
  });
});

describe("cronMinutes driving firesAt across Europe/Berlin's fall back (2026-10-25, 03:00 CEST → 02:00 CET)", () => {
  it("`*/15 * * * *` fires 4 times in the repeated hour, not 8: 00:00Z-00:45Z, then not until 02:00Z", () => {
    const scheduler = testScheduler();
    const schedule = parseCronExpression("*/15 * * * *");
    const clock = startingAt(scheduler, Date.parse("2026-10-24T23:59:30Z"));
    const at = (iso: string) => Date.parse(iso);
    scheduler.run(({ expectObservable }) => {
      const firings = cronMinutes(clock).pipe(filter((minute) => firesAt(schedule, "Europe/Berlin", minute)));
      expectObservable(firings, "^ 125m !").toBe("30s a 899999ms b 899999ms c 899999ms d 4499999ms e", {
        a: at("2026-10-25T00:00:00Z"), // 02:00 CEST
        b: at("2026-10-25T00:15:00Z"),
        c: at("2026-10-25T00:30:00Z"),
        d: at("2026-10-25T00:45:00Z"), // 01:00Z-01:45Z show 02:00-02:45 again (CET): no firing
        e: at("2026-10-25T02:00:00Z"), // 03:00 CET
      });
    });
  });

  it("`30 2 * * *` fires at 00:30Z and not at 01:30Z", () => {
    const scheduler = testScheduler();
    const schedule = parseCronExpression("30 2 * * *");
    const clock = startingAt(scheduler, Date.parse("2026-10-25T00:00:00Z"));
    scheduler.run(({ expectObservable }) => {
      const firings = cronMinutes(clock).pipe(filter((minute) => firesAt(schedule, "Europe/Berlin", minute)));
      expectObservable(firings, "^ 180m !").toBe("30m a", { a: Date.parse("2026-10-25T00:30:00Z") });
    });
  });
});
