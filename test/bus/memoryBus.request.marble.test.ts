import { describe, expect, it } from "vitest";
import { VirtualTimeScheduler, delay, mergeMap, tap, timer } from "rxjs";
import type { BusMessage } from "../../src/bus/bus.js";
import { BusTimeoutError, NoRespondersError } from "../../src/bus/errors.js";
import { MemoryBus } from "../../src/bus/memoryBus.js";
import { testScheduler } from "../helpers/marbles.js";

describe("MemoryBus request/reply (virtual time)", () => {
  it("emits the reply and completes in the same frame when the responder answers at once", () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      bus.subscribe<string>("svc.echo").subscribe((message) => message.respond(`${message.data}!`));

      expectObservable(bus.request("svc.echo", "ping", { timeoutMs: 100 })).toBe("(r|)", { r: "ping!" });
    });
  });

  it("emits a reply that arrives before the timeout at the frame it arrives", () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      bus
        .subscribe<string>("svc.echo")
        .pipe(delay(99))
        .subscribe((message) => message.respond(`${message.data}!`));

      expectObservable(bus.request("svc.echo", "ping", { timeoutMs: 100 })).toBe("99ms (r|)", { r: "ping!" });
    });
  });

  it("errors with BusTimeoutError at exactly timeoutMs when nobody answers", () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      bus.subscribe("svc.silent").subscribe(); // listens, never answers

      expectObservable(bus.request("svc.silent", "ping", { timeoutMs: 100 })).toBe(
        "100ms #",
        undefined,
        new BusTimeoutError("svc.silent", 100),
      );
    });
  });

  it("errors with NoRespondersError in frame 0 when nobody listens", () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      bus.subscribe("svc.other").subscribe((message) => message.respond("wrong service"));

      expectObservable(bus.request("svc.echo", "ping", { timeoutMs: 100 })).toBe(
        "#",
        undefined,
        new NoRespondersError("svc.echo"),
      );
    });
  });

  it("takes the first of two responders; the later respond() returns false", () => {
    const scheduler = testScheduler();
    const answered: Array<[string, boolean]> = [];
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      const responder = (name: string, after: number) =>
        bus
          .subscribe<string>("svc.echo")
          .pipe(mergeMap((message) => timer(after).pipe(mergeMap(() => [message]))))
          .subscribe((message) => answered.push([name, message.respond(name)]));
      responder("slow", 30);
      responder("fast", 10);

      expectObservable(bus.request("svc.echo", "ping", { timeoutMs: 100 })).toBe("10ms (r|)", { r: "fast" });
    });
    expect(answered).toEqual([
      ["fast", true],
      ["slow", false],
    ]);
  });

  it("sends a request to one member of a queue group and to every plain subscriber", () => {
    const scheduler = testScheduler();
    const received: string[] = [];
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      const listen = (name: string, queue?: string) =>
        bus.subscribe("svc.echo", queue === undefined ? {} : { queue }).subscribe(() => received.push(name));
      listen("a", "workers");
      listen("b", "workers");
      listen("audit");

      expectObservable(bus.request("svc.echo", 1, { timeoutMs: 100 })).toBe("100ms #", undefined, new BusTimeoutError("svc.echo", 100));
    });
    expect(received).toEqual(["audit", "a"]);
  });

  it("refuses a reply that comes after the timeout", () => {
    const scheduler = testScheduler();
    const late: boolean[] = [];
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      bus
        .subscribe<string>("svc.slow")
        .pipe(delay(150))
        .subscribe((message) => late.push(message.respond("too late")));

      expectObservable(bus.request("svc.slow", "ping", { timeoutMs: 100 })).toBe(
        "100ms #",
        undefined,
        new BusTimeoutError("svc.slow", 100),
      );
    });
    expect(late).toEqual([false]);
  });

  it("stops waiting when the caller unsubscribes; a later reply is refused", () => {
    const scheduler = testScheduler();
    const late: boolean[] = [];
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      bus
        .subscribe<string>("svc.slow")
        .pipe(delay(50))
        .subscribe((message) => late.push(message.respond("after unsubscribe")));

      expectObservable(bus.request("svc.slow", "ping", { timeoutMs: 100 }), "^ 19ms !").toBe("");
    });
    expect(late).toEqual([false]);
  });

  it("is cold: each subscription sends its own request", () => {
    const scheduler = testScheduler();
    const requests: BusMessage<number>[] = [];
    scheduler.run(({ cold, expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      bus.subscribe<number>("svc.count").subscribe((message) => {
        requests.push(message);
        message.respond(requests.length);
      });
      const request = bus.request<number, number>("svc.count", 0, { timeoutMs: 100 });

      expectObservable(cold("a 9ms b|").pipe(mergeMap(() => request))).toBe("x 9ms y|", { x: 1, y: 2 });
    });
    expect(requests).toHaveLength(2);
  });

  it("passes request data and headers to the responder", () => {
    const scheduler = testScheduler();
    const seen: Array<{ data: unknown; headers: unknown }> = [];
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      bus.subscribe("svc.echo").subscribe((message) => {
        seen.push({ data: message.data, headers: message.headers });
        message.respond("ok");
      });

      expectObservable(bus.request("svc.echo", { q: 1 }, { timeoutMs: 100, headers: { "x-id": "7" } })).toBe("(r|)", {
        r: "ok",
      });
    });
    expect(seen).toEqual([{ data: { q: 1 }, headers: { "x-id": "7" } }]);
  });

  it("delivers a reply given inside the request's delivery after that delivery reaches everyone", () => {
    const scheduler = testScheduler();
    const log: string[] = [];
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      bus.subscribe("svc.echo").subscribe((message) => {
        message.respond("pong");
        log.push("responder done");
      });
      bus.subscribe("svc.echo").subscribe(() => log.push("audit saw request"));

      const request = bus.request<string, string>("svc.echo", "ping", { timeoutMs: 100 });
      expectObservable(request.pipe(tap((reply) => log.push(`reply ${reply}`)))).toBe("(r|)", { r: "pong" });
    });
    // The reply goes through the delivery queue like any message: after the request reached the audit subscriber.
    expect(log).toEqual(["responder done", "audit saw request", "reply pong"]);
  });

  it("measures the timeout on the bus scheduler, not the global async scheduler", () => {
    // Outside `run()` the global scheduler is real time, so only the bus scheduler can fire this timeout.
    const scheduler = new VirtualTimeScheduler();
    const bus = new MemoryBus({ scheduler });
    bus.subscribe("svc.silent").subscribe();
    const failures: Array<{ error: unknown; at: number }> = [];
    bus.request("svc.silent", "ping", { timeoutMs: 100 }).subscribe({
      error: (error: unknown) => failures.push({ error, at: scheduler.now() }),
    });

    scheduler.flush();

    expect(failures).toEqual([{ error: new BusTimeoutError("svc.silent", 100), at: 100 }]);
  });
});
