import { describe, expect, it } from "vitest";
import { concatMap, EMPTY, from, mergeMap, tap, timer, VirtualTimeScheduler, type Observable } from "rxjs";
import type { TestScheduler } from "rxjs/testing";
import type { OutboundCommand, OutboundMessage, SendReceipt } from "../../operators/delivery/outboundMessage.js";
import type { Headers } from "../../src/bus/bus.js";
import { BusClosedError } from "../../src/bus/errors.js";
import { MemoryBus } from "../../src/bus/memoryBus.js";
import { Pipeline } from "../../src/pipeline/pipeline.js";
import { createSender, type SenderOptions, type SendRetry } from "../../src/pipeline/send.js";
import { MemoryRateBuckets } from "../../operators/delivery/flow/rateBuckets.js";
import { SendShaper } from "../../operators/delivery/flow/sendShaper.js";
import { SEND_ID_HEADER, SendError, subjects, type SendReply } from "../../src/wire/index.js";
import { testScheduler } from "../helpers/marbles.js";
import { recordingInstruments } from "../helpers/recordingInstruments.js";

const names = subjects();
const sendSubject = names.send("telegram");

const message: OutboundMessage = {
  reply_to: "evt-1",
  platform: "telegram",
  channel: { id: "chat-1" },
  content: { type: "text", text: "on it" },
};

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What a send did, and at which virtual millisecond. */
type Outcome = { kind: "receipt"; receipt: SendReceipt; at: number } | { kind: "error"; error: unknown; at: number } | { kind: "complete"; at: number };

/** Subscribes to a send and records each notification with the virtual time it came at. */
function record(scheduler: TestScheduler, send: Observable<SendReceipt>): Outcome[] {
  const outcomes: Outcome[] = [];
  send.subscribe({
    next: (receipt) => outcomes.push({ kind: "receipt", receipt, at: scheduler.now() }),
    error: (error: unknown) => outcomes.push({ kind: "error", error, at: scheduler.now() }),
    complete: () => outcomes.push({ kind: "complete", at: scheduler.now() }),
  });
  return outcomes;
}

/** An edge on the send subject: records each request's headers and answers with `reply`, or never when it is undefined. */
function edge(bus: MemoryBus, reply: ((message: OutboundMessage) => SendReply) | undefined, requests: Headers[], sentMessages: OutboundMessage[] = []) {
  return bus.subscribe<OutboundMessage>(sendSubject, { queue: names.sendQueue }).pipe(
    tap((request) => {
      requests.push(request.headers);
      sentMessages.push(request.data);
      if (reply !== undefined) request.respond(reply(request.data));
    }),
  );
}

const posted = (): SendReply => ({ ok: true, messageId: "m1" });

function sender(bus: MemoryBus, options: Partial<SenderOptions> = {}) {
  return createSender({ bus, subjects: names, pipeline: new Pipeline(), timeoutMs: 100, ...options });
}

describe("createSender (virtual time)", () => {
  it("asks again when no edge listened, and gets the receipt from an edge that appeared meanwhile (retry at 1000 ms)", () => {
    const scheduler = testScheduler();
    const requests: Headers[] = [];
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      timer(500)
        .pipe(mergeMap(() => edge(bus, posted, requests)))
        .subscribe();

      expectObservable(sender(bus, { retries: 2 })(message)).toBe("1000ms (r|)", { r: { messageId: "m1" } });
    });
    expect(requests).toHaveLength(1);
    expect(requests[0]?.[SEND_ID_HEADER]).toMatch(uuid);
  });

  it("waits 1000 ms × attempt between asks: an edge appearing at 1500 ms answers the second retry at 3000 ms", () => {
    const scheduler = testScheduler();
    const requests: Headers[] = [];
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      timer(1500)
        .pipe(mergeMap(() => edge(bus, posted, requests)))
        .subscribe();

      expectObservable(sender(bus, { retries: 2 })(message)).toBe("3000ms (r|)", { r: { messageId: "m1" } });
    });
    expect(requests).toHaveLength(1);
  });

  it("fails at once with SendError no_gateway when no edge listens and retries is 0 (the default)", () => {
    const scheduler = testScheduler();
    const lateRequests: Headers[] = [];
    let outcomes: Outcome[] = [];
    let outcomesWithDefault: Outcome[] = [];
    scheduler.run(() => {
      const bus = new MemoryBus({ scheduler });
      outcomes = record(scheduler, sender(bus, { retries: 0 })(message));
      outcomesWithDefault = record(scheduler, sender(bus)(message));
      // An edge arriving later must not be asked: nothing is retried.
      timer(500)
        .pipe(mergeMap(() => edge(bus, posted, lateRequests)))
        .subscribe();
    });
    expect(lateRequests).toEqual([]);
    for (const result of [outcomes, outcomesWithDefault]) {
      expect(result).toHaveLength(1);
      expect(result[0]).toMatchObject({ kind: "error", at: 0 });
      const error = result[0]?.kind === "error" ? result[0].error : undefined;
      expect(error).toBeInstanceOf(SendError);
      expect(error).toMatchObject({ code: "no_gateway" });
    }
  });

  it("fails with no_gateway after the last retry when no edge ever listens (0 + 1000 + 2000 ms)", () => {
    const scheduler = testScheduler();
    let outcomes: Outcome[] = [];
    scheduler.run(() => {
      const bus = new MemoryBus({ scheduler });
      outcomes = record(scheduler, sender(bus, { retries: 2 })(message));
    });
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ kind: "error", at: 3000, error: { code: "no_gateway" } });
    expect(outcomes[0]?.kind === "error" && outcomes[0].error).toBeInstanceOf(SendError);
  });

  it("retries an edge that never answers with the same send id, then fails with SendError timeout at 100 + 1000 + 100 ms", () => {
    const scheduler = testScheduler();
    const requests: Headers[] = [];
    const askedAt: number[] = [];
    let outcomes: Outcome[] = [];
    scheduler.run(() => {
      const bus = new MemoryBus({ scheduler });
      edge(bus, undefined, requests)
        .pipe(tap(() => askedAt.push(scheduler.now())))
        .subscribe();
      outcomes = record(scheduler, sender(bus, { retries: 1, timeoutMs: 100 })(message));
    });
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ kind: "error", at: 1200, error: { code: "timeout" } });
    expect(outcomes[0]?.kind === "error" && outcomes[0].error).toBeInstanceOf(SendError);
    expect(askedAt).toEqual([0, 1100]);
    expect(requests).toHaveLength(2);
    expect(requests[0]?.[SEND_ID_HEADER]).toMatch(uuid);
    expect(requests[1]?.[SEND_ID_HEADER]).toBe(requests[0]?.[SEND_ID_HEADER]);
  });

  it("gets the receipt from a retry at 1100 ms when the first ask went unanswered, with one send id for both", () => {
    const scheduler = testScheduler();
    const requests: Headers[] = [];
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      // Loses the first ask (as an answer dropped between servers would be), answers the next.
      bus.subscribe<OutboundMessage>(sendSubject, { queue: names.sendQueue }).subscribe((request) => {
        requests.push(request.headers);
        if (requests.length > 1) request.respond(posted());
      });

      expectObservable(sender(bus, { retries: 1, timeoutMs: 100 })(message)).toBe("1100ms (r|)", { r: { messageId: "m1" } });
    });
    expect(requests).toHaveLength(2);
    expect(requests[1]?.[SEND_ID_HEADER]).toBe(requests[0]?.[SEND_ID_HEADER]);
  });

  it("waits between asks on the bus scheduler, not the global async scheduler", () => {
    // Outside `run()` the global scheduler is real time, so only the bus scheduler can end this wait.
    const scheduler = new VirtualTimeScheduler();
    const bus = new MemoryBus({ scheduler });
    const requests: Headers[] = [];
    const receipts: Array<{ receipt: SendReceipt; at: number }> = [];
    scheduler.schedule(() => void edge(bus, posted, requests).subscribe(), 500);
    const subscription = sender(bus, { retries: 1 })(message).subscribe((receipt) => receipts.push({ receipt, at: scheduler.now() }));

    scheduler.flush();
    subscription.unsubscribe();

    expect(receipts).toEqual([{ receipt: { messageId: "m1" }, at: 1000 }]);
    expect(requests).toHaveLength(1);
  });

  it("does not retry an edge's refusal: one request, SendError with the edge's code", () => {
    const scheduler = testScheduler();
    const requests: Headers[] = [];
    let outcomes: Outcome[] = [];
    scheduler.run(() => {
      const bus = new MemoryBus({ scheduler });
      edge(bus, () => ({ ok: false, code: "rejected", error: "nope" }), requests).subscribe();
      outcomes = record(scheduler, sender(bus, { retries: 2 })(message));
    });
    expect(requests).toHaveLength(1);
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ kind: "error", at: 0, error: { code: "rejected", message: "nope" } });
    expect(outcomes[0]?.kind === "error" && outcomes[0].error).toBeInstanceOf(SendError);
  });

  it("does not retry a malformed answer: one request, SendError bad_reply", () => {
    const scheduler = testScheduler();
    const requests: Headers[] = [];
    let outcomes: Outcome[] = [];
    scheduler.run(() => {
      const bus = new MemoryBus({ scheduler });
      bus
        .subscribe<OutboundMessage>(sendSubject, { queue: names.sendQueue })
        .subscribe((request) => {
          requests.push(request.headers);
          request.respond({ posted: "maybe" });
        });
      outcomes = record(scheduler, sender(bus, { retries: 2 })(message));
    });
    expect(requests).toHaveLength(1);
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ kind: "error", at: 0, error: { code: "bad_reply" } });
  });

  it("does not retry a bus failure other than no responders or timeout (a closed bus), and passes it on unchanged", () => {
    const scheduler = testScheduler();
    let outcomes: Outcome[] = [];
    scheduler.run(() => {
      const bus = new MemoryBus({ scheduler });
      void bus.close();
      outcomes = record(scheduler, sender(bus, { retries: 2 })(message));
    });
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ kind: "error", at: 0 });
    expect(outcomes[0]?.kind === "error" && outcomes[0].error).toBeInstanceOf(BusClosedError);
  });

  it("gives each send its own send id", () => {
    const scheduler = testScheduler();
    const requests: Headers[] = [];
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      edge(bus, posted, requests).subscribe();
      const send = sender(bus, { retries: 2 });

      expectObservable(send(message)).toBe("(r|)", { r: { messageId: "m1" } });
      expectObservable(send(message)).toBe("(r|)", { r: { messageId: "m1" } });
    });
    const ids = requests.map((headers) => headers[SEND_ID_HEADER]);
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(id).toMatch(uuid);
    expect(new Set(ids).size).toBe(2);
  });

  it("subscribing to one send twice asks twice, each time with a fresh send id", () => {
    const scheduler = testScheduler();
    const requests: Headers[] = [];
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      edge(bus, posted, requests).subscribe();
      const once = sender(bus)(message);

      expectObservable(once).toBe("(r|)", { r: { messageId: "m1" } });
      expectObservable(once).toBe("(r|)", { r: { messageId: "m1" } });
    });
    expect(new Set(requests.map((headers) => headers[SEND_ID_HEADER])).size).toBe(2);
  });

  it("runs beforeSend once per send, however many times the request is retried", () => {
    const scheduler = testScheduler();
    const stageRuns: string[] = [];
    const requests: Headers[] = [];
    const seen: OutboundMessage[] = [];
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      timer(1500)
        .pipe(mergeMap(() => edge(bus, posted, requests, seen)))
        .subscribe();
      const pipeline = new Pipeline().use(
        "beforeSend",
        tap((outbound) => stageRuns.push(outbound.content.text)),
        mergeMap((outbound) => [{ ...outbound, content: { type: "text" as const, text: `${outbound.content.text}!` } }]),
      );

      expectObservable(sender(bus, { retries: 2, pipeline })(message)).toBe("3000ms (r|)", { r: { messageId: "m1" } });
    });
    expect(stageRuns).toEqual(["on it"]);
    expect(seen.map((m) => m.content.text)).toEqual(["on it!"]);
  });

  it("sends each message a beforeSend fan-out emits, in order, each with its own send id", () => {
    const scheduler = testScheduler();
    const requests: Headers[] = [];
    const seen: OutboundMessage[] = [];
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      edge(bus, (m) => ({ ok: true, messageId: m.content.text }), requests, seen).subscribe();
      const pipeline = new Pipeline().use(
        "beforeSend",
        mergeMap((outbound) => from(["a", "b"].map((text) => ({ ...outbound, content: { type: "text" as const, text } })))),
      );

      expectObservable(sender(bus, { pipeline })(message)).toBe("(ab|)", { a: { messageId: "a" }, b: { messageId: "b" } });
    });
    expect(seen.map((m) => m.content.text)).toEqual(["a", "b"]);
    expect(new Set(requests.map((headers) => headers[SEND_ID_HEADER])).size).toBe(2);
  });

  it("sends nothing and completes when beforeSend drops the message", () => {
    const scheduler = testScheduler();
    const requests: Headers[] = [];
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      edge(bus, posted, requests).subscribe();
      const pipeline = new Pipeline().use("beforeSend", mergeMap(() => EMPTY));

      expectObservable(sender(bus, { retries: 2, pipeline })(message)).toBe("|");
    });
    expect(requests).toEqual([]);
  });

  it("runs a beforeSend operator added after the sender was made (an empty stage is seen per send, not once)", () => {
    const scheduler = testScheduler();
    const seen: OutboundMessage[] = [];
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      edge(bus, posted, [], seen).subscribe();
      const pipeline = new Pipeline();
      const send = sender(bus, { pipeline });
      expectObservable(send(message)).toBe("(r|)", { r: { messageId: "m1" } });
      pipeline.use("beforeSend", mergeMap((outbound) => [{ ...outbound, content: { type: "text" as const, text: "late stage" } }]));
      expectObservable(send(message)).toBe("(r|)", { r: { messageId: "m1" } });
    });
    expect(seen.map((m) => m.content.text)).toEqual(["on it", "late stage"]);
  });
});

describe("createSender instruments (virtual time)", () => {
  /** An edge that answers `reply` `delayMs` of virtual time after it was asked. */
  function slowEdge(bus: MemoryBus, scheduler: TestScheduler, delayMs: number, reply: (message: OutboundMessage) => unknown = posted) {
    return bus.subscribe<OutboundMessage>(sendSubject, { queue: names.sendQueue }).pipe(
      tap((request) => void scheduler.schedule(() => request.respond(reply(request.data)), delayMs)),
    );
  }

  it.each<[OutboundCommand | undefined, string]>([
    [undefined, "message"],
    ["create_topic", "message"],
    ["edit_message", "edit"],
    ["delete_message", "delete"],
    ["add_reaction", "reaction"],
    ["remove_reaction", "reaction"],
  ])("counts an acked send of command %s as messageSent(%s) with its ack latency in seconds", (command, kind) => {
    const scheduler = testScheduler();
    const { instruments, calls } = recordingInstruments();
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      slowEdge(bus, scheduler, 250).subscribe();
      const outbound: OutboundMessage = command === undefined ? message : { ...message, command };
      expectObservable(sender(bus, { instruments, timeoutMs: 1_000 })(outbound)).toBe("250ms (r|)", { r: { messageId: "m1" } });
    });
    expect(calls).toEqual([["messageSent", kind, 0.25]]);
  });

  it("counts an instant answer with an ack latency of 0", () => {
    const scheduler = testScheduler();
    const { instruments, calls } = recordingInstruments();
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      edge(bus, posted, []).subscribe();
      expectObservable(sender(bus, { instruments })(message)).toBe("(r|)", { r: { messageId: "m1" } });
    });
    expect(calls).toEqual([["messageSent", "message", 0]]);
  });

  it("measures the ack latency from the first ask, across retries (an edge appearing at 1500 ms answers at 3000 ms: 3 s)", () => {
    const scheduler = testScheduler();
    const { instruments, calls } = recordingInstruments();
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      timer(1500)
        .pipe(mergeMap(() => edge(bus, posted, [])))
        .subscribe();
      expectObservable(sender(bus, { retries: 2, instruments })(message)).toBe("3000ms (r|)", { r: { messageId: "m1" } });
    });
    // One count for the send, none for the attempts nobody answered.
    expect(calls).toEqual([["messageSent", "message", 3]]);
  });

  it("measures each send from its own subscription, not from when the sender was made", () => {
    const scheduler = testScheduler();
    const { instruments, calls } = recordingInstruments();
    scheduler.run(() => {
      const bus = new MemoryBus({ scheduler });
      slowEdge(bus, scheduler, 100).subscribe();
      const send = sender(bus, { instruments, timeoutMs: 1_000 });
      timer(400).subscribe(() => void send({ ...message, command: "edit_message" }).subscribe());
      send(message).subscribe();
    });
    expect(calls).toEqual([
      ["messageSent", "message", 0.1],
      ["messageSent", "edit", 0.1],
    ]);
  });

  it("counts each message of a beforeSend fan-out by its own kind, and nothing for a dropped message", () => {
    const scheduler = testScheduler();
    const { instruments, calls } = recordingInstruments();
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      edge(bus, posted, []).subscribe();
      const fanOut = new Pipeline().use(
        "beforeSend",
        mergeMap((outbound) => from([outbound, { ...outbound, command: "add_reaction" as const }])),
      );
      expectObservable(sender(bus, { instruments, pipeline: fanOut })(message)).toBe("(ab|)", { a: { messageId: "m1" }, b: { messageId: "m1" } });
      const dropAll = new Pipeline().use("beforeSend", mergeMap(() => EMPTY));
      expectObservable(sender(bus, { instruments, pipeline: dropAll })(message)).toBe("|");
    });
    expect(calls).toEqual([
      ["messageSent", "message", 0],
      ["messageSent", "reaction", 0],
    ]);
  });

  it("counts a gateway's refusal as sendFailed with the gateway's own code (BrokerMetrics maps it later), and no messageSent", () => {
    const scheduler = testScheduler();
    const { instruments, calls } = recordingInstruments();
    let outcomes: Outcome[] = [];
    scheduler.run(() => {
      const bus = new MemoryBus({ scheduler });
      edge(bus, () => ({ ok: false, code: "rate_limited", error: "slow down" }), []).subscribe();
      outcomes = record(scheduler, sender(bus, { retries: 2, instruments })(message));
    });
    expect(outcomes).toEqual([expect.objectContaining({ kind: "error", error: expect.objectContaining({ code: "rate_limited" }) })]);
    expect(calls).toEqual([["sendFailed", "rate_limited"]]);
  });

  it("counts no responder as sendFailed(no_gateway) once, after the last retry, not per attempt", () => {
    const scheduler = testScheduler();
    const { instruments, calls } = recordingInstruments();
    const failedAt: number[] = [];
    scheduler.run(() => {
      const bus = new MemoryBus({ scheduler });
      const timed = {
        ...instruments,
        sendFailed: (code: string) => {
          failedAt.push(scheduler.now());
          instruments.sendFailed(code);
        },
      };
      record(scheduler, sender(bus, { instruments: timed })(message));
      record(scheduler, sender(bus, { retries: 2, instruments: timed })(message));
    });
    expect(calls).toEqual([
      ["sendFailed", "no_gateway"],
      ["sendFailed", "no_gateway"],
    ]);
    expect(failedAt).toEqual([0, 3000]);
  });

  it("counts a malformed answer as sendFailed(bad_reply)", () => {
    const scheduler = testScheduler();
    const { instruments, calls } = recordingInstruments();
    scheduler.run(() => {
      const bus = new MemoryBus({ scheduler });
      edge(bus, () => ({ posted: "maybe" }) as unknown as SendReply, []).subscribe();
      record(scheduler, sender(bus, { instruments })(message));
    });
    expect(calls).toEqual([["sendFailed", "bad_reply"]]);
  });

  it("counts an edge that never answers as sendFailed(timeout) at the timeout", () => {
    const scheduler = testScheduler();
    const { instruments, calls } = recordingInstruments();
    let outcomes: Outcome[] = [];
    scheduler.run(() => {
      const bus = new MemoryBus({ scheduler });
      edge(bus, undefined, []).subscribe();
      outcomes = record(scheduler, sender(bus, { instruments, timeoutMs: 100 })(message));
    });
    expect(outcomes).toEqual([expect.objectContaining({ kind: "error", at: 100 })]);
    expect(calls).toEqual([["sendFailed", "timeout"]]);
  });

  it("counts a failure that is not a SendError (a closed bus) as sendFailed(send_failed)", () => {
    const scheduler = testScheduler();
    const { instruments, calls } = recordingInstruments();
    let outcomes: Outcome[] = [];
    scheduler.run(() => {
      const bus = new MemoryBus({ scheduler });
      void bus.close();
      outcomes = record(scheduler, sender(bus, { instruments })(message));
    });
    expect(outcomes[0]?.kind === "error" && outcomes[0].error).toBeInstanceOf(BusClosedError);
    expect(calls).toEqual([["sendFailed", "send_failed"]]);
  });

  it("counts nothing for a send unsubscribed before its answer", () => {
    const scheduler = testScheduler();
    const { instruments, calls } = recordingInstruments();
    scheduler.run(() => {
      const bus = new MemoryBus({ scheduler });
      slowEdge(bus, scheduler, 500).subscribe();
      const subscription = sender(bus, { instruments, timeoutMs: 1_000 })(message).subscribe();
      timer(100).subscribe(() => subscription.unsubscribe());
    });
    expect(calls).toEqual([]);
  });
});

describe("createSender: a gateway's 'try again later' (virtual time)", () => {
  const later = (retryAfterMs: number): SendReply => ({ ok: false, code: "rate_limited", error: "gateway rejected write (rate_limited): slow down", retryAfterMs });
  /** Answers the first `refusals` asks with `refusal`, then posts. */
  const refusing = (refusals: number, refusal: SendReply) => {
    let asked = 0;
    return (): SendReply => (++asked <= refusals ? refusal : posted());
  };

  it("waits retryAfterMs and asks again with a fresh send id; the receipt comes after the wait, the retry is counted and told, each attempt told as it leaves", () => {
    const scheduler = testScheduler();
    const requests: Headers[] = [];
    const told: SendRetry[] = [];
    const attempts: [string, number, number][] = [];
    const { instruments, calls } = recordingInstruments();
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      edge(bus, refusing(2, later(1_500)), requests).subscribe();
      const onAttempt = (left: OutboundMessage, attempt: number) => attempts.push([left.content.text, attempt, scheduler.now()]);
      const send = sender(bus, { retryBudgetMs: 10_000, instruments, onRetry: (retry) => told.push(retry), onAttempt });
      expectObservable(send(message)).toBe("3000ms (r|)", { r: { messageId: "m1" } });
    });
    expect(attempts).toEqual([
      [message.content.text, 1, 0],
      [message.content.text, 2, 1_500],
      [message.content.text, 3, 3_000],
    ]);
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((headers) => headers[SEND_ID_HEADER])).size).toBe(3);
    expect(told.map(({ waitMs, attempt, error }) => [waitMs, attempt, error.code])).toEqual([
      [1_500, 1, "rate_limited"],
      [1_500, 2, "rate_limited"],
    ]);
    expect(calls).toEqual([["sendRetried"], ["sendRetried"], ["messageSent", "message", 3]]);
  });

  it("keeps what follows behind the waiting message: concatenated sends stay in order", () => {
    const scheduler = testScheduler();
    const sent: OutboundMessage[] = [];
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      let asked = 0;
      edge(bus, () => (++asked === 2 ? later(1_000) : posted()), [], sent).subscribe();
      const send = sender(bus, { retryBudgetMs: 10_000 });
      const texts = ["one", "two", "three"].map((text) => ({ ...message, content: { type: "text" as const, text } }));
      expectObservable(from(texts).pipe(concatMap((m) => send(m)))).toBe("a 999ms (bc|)", { a: { messageId: "m1" }, b: { messageId: "m1" }, c: { messageId: "m1" } });
    });
    expect(sent.map((m) => m.content.text)).toEqual(["one", "two", "two", "three"]);
  });

  it("fails with the refusal once the next wait would outlast the budget, counted as a failure", () => {
    const scheduler = testScheduler();
    const { instruments, calls } = recordingInstruments();
    scheduler.run(() => {
      const bus = new MemoryBus({ scheduler });
      edge(bus, () => later(1_500), []).subscribe();
      const outcomes = record(scheduler, sender(bus, { retryBudgetMs: 2_000, instruments })(message));
      scheduler.flush();
      expect(outcomes).toEqual([{ kind: "error", error: expect.objectContaining({ name: "SendError", code: "rate_limited", retryAfterMs: 1_500 }) as unknown, at: 1_500 }]);
    });
    expect(calls).toEqual([["sendRetried"], ["sendFailed", "rate_limited"]]);
  });

  it("never asks again without a budget (the default), nor for a refusal that names no wait", () => {
    const scheduler = testScheduler();
    const requests: Headers[] = [];
    scheduler.run(() => {
      const bus = new MemoryBus({ scheduler });
      let asked = 0;
      edge(bus, () => (++asked === 1 ? later(100) : { ok: false, code: "rejected", error: "no" }), requests).subscribe();
      const noBudget = record(scheduler, sender(bus)(message));
      const noWait = record(scheduler, sender(bus, { retryBudgetMs: 10_000 })(message));
      scheduler.flush();
      expect(noBudget).toEqual([{ kind: "error", error: expect.objectContaining({ code: "rate_limited" }) as unknown, at: 0 }]);
      expect(noWait).toEqual([{ kind: "error", error: expect.objectContaining({ code: "rejected", retryAfterMs: undefined }) as unknown, at: 0 }]);
    });
    expect(requests).toHaveLength(2);
  });

  it("unsubscribing while it waits cancels the next ask", () => {
    const scheduler = testScheduler();
    const requests: Headers[] = [];
    scheduler.run(() => {
      const bus = new MemoryBus({ scheduler });
      edge(bus, refusing(1, later(1_000)), requests).subscribe();
      const subscription = sender(bus, { retryBudgetMs: 10_000 })(message).subscribe();
      scheduler.schedule(() => subscription.unsubscribe(), 500);
      scheduler.flush();
    });
    expect(requests).toHaveLength(1);
  });
});

describe("createSender with a shaper (virtual time)", () => {
  const oncePerSecond = (scheduler: TestScheduler) =>
    new SendShaper({
      limits: (platform) =>
        platform === "telegram" ? { perConversation: { messages: 1, perSecs: 1, burst: 1 }, conversationCounts: new Set(["message"]), botCounts: new Set(["message"]) } : undefined,
      bot: new MemoryRateBuckets(),
      scheduler,
    });

  it("holds each message beforeSend lets through, not the one it was given: a dropped message takes no token, a fan-out counts each", () => {
    const scheduler = testScheduler();
    const sentAt: number[] = [];
    scheduler.run(({ expectObservable }) => {
      const bus = new MemoryBus({ scheduler });
      edge(bus, (m) => (sentAt.push(scheduler.now()), posted()), []).subscribe();
      const pipeline = new Pipeline().use("beforeSend", mergeMap((m: OutboundMessage) => (m.content.text === "drop" ? EMPTY : m.content.text === "two" ? from([m, m]) : from([m]))));
      const send = sender(bus, { pipeline, shaper: oncePerSecond(scheduler) });
      const texts = ["drop", "two", "one"].map((text) => ({ ...message, content: { type: "text" as const, text } }));
      expectObservable(from(texts).pipe(concatMap((m) => send(m)))).toBe("a 999ms b 999ms (c|)", { a: { messageId: "m1" }, b: { messageId: "m1" }, c: { messageId: "m1" } });
    });
    expect(sentAt).toEqual([0, 1000, 2000]);
  });

  it("tells `departing` as each attempt leaves — after the bucket's hold, and again after a 'try again later'", () => {
    const scheduler = testScheduler();
    const departures: number[] = [];
    scheduler.run(() => {
      const bus = new MemoryBus({ scheduler });
      let asked = 0;
      edge(bus, () => (++asked === 2 ? { ok: false, code: "rate_limited", error: "slow down", retryAfterMs: 1_500 } : posted()), []).subscribe();
      const send = sender(bus, { shaper: oncePerSecond(scheduler), retryBudgetMs: 10_000 });
      const departing = () => departures.push(scheduler.now());
      from([1, 2, 3])
        .pipe(concatMap(() => send(message, { departing })))
        .subscribe();
      scheduler.flush();
    });
    // 1 at 0; 2 held to 1000, refused, sent again at 2500; 3 a token after the retry, at 3500.
    expect(departures).toEqual([0, 1000, 2500, 3500]);
  });
});
