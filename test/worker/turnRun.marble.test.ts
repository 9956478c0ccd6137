import { describe, expect, it } from "vitest";
import { concat, concatMap, EMPTY, filter, ignoreElements, map, Observable, throwError, timer, type SchedulerLike } from "rxjs";
import type { OutboundMessage } from "../../operators/delivery/outboundMessage.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { settingsFromConfig } from "../../operators/triage/triageSettings.js";
import type { DurableMessage } from "../../src/bus/bus.js";
import { MemoryBus } from "../../src/bus/memoryBus.js";
import type { TurnHandler } from "../../src/turn/turn.js";
import type { SettledTurn } from "../../src/turn/turn.js";
import { Pipeline } from "../../src/pipeline/pipeline.js";
import { MemoryTriageStore } from "../../src/state/triageStore.js";
import { StateStoreError } from "../../src/state/errors.js";
import { runTurn, type TurnEnd, type TurnRunOptions } from "../../src/worker/turnRun.js";
import { gatewayEvent } from "../helpers/events.js";
import { captureLogs } from "../helpers/logCapture.js";
import { recordingInstruments } from "../helpers/recordingInstruments.js";
import { testScheduler } from "../helpers/marbles.js";

/** Real durable messages from a MemoryBus on `scheduler`, each counting its acks. */
function messagesOf(scheduler: SchedulerLike, events: readonly GatewayEvent[]): { messages: DurableMessage<GatewayEvent>[]; acks: () => number[] } {
  const bus = new MemoryBus({ scheduler });
  const counts = events.map(() => 0);
  const messages: DurableMessage<GatewayEvent>[] = [];
  bus.consume<GatewayEvent>("t.turn.0", { durable: "w" }).subscribe((message) => {
    const i = messages.length;
    messages.push({ ...message, ack: () => ((counts[i] = (counts[i] ?? 0) + 1), message.ack()), nak: (ms) => message.nak(ms) });
  });
  for (const event of events) bus.persist("t.turn.0", event).subscribe();
  return { messages, acks: () => counts };
}

function options(scheduler: SchedulerLike, pipeline: Pipeline, handler: TurnHandler | undefined, extra: Partial<TurnRunOptions> = {}) {
  const settled: SettledTurn[] = [];
  const { logger, records } = captureLogs("info");
  const opts: TurnRunOptions = {
    bus: new MemoryBus({ scheduler }),
    logger,
    pipeline,
    handler,
    send: () => new Observable(),
    messageLimit: () => 4096,
    retryInMs: 1_000,
    onSettled: (turn) => settled.push(turn),
    ...extra,
  };
  return { opts, settled, records };
}

/** The turn as a stream of how it ended, for marbles. */
const turn$ = (messages: DurableMessage<GatewayEvent>[], opts: TurnRunOptions) =>
  new Observable<TurnEnd>((subscriber) =>
    runTurn(messages, { dropped: [], marked: false }, opts, (end) => {
      subscriber.next(end);
      subscriber.complete();
    }),
  );

describe("runTurn (marbles)", () => {
  it("settles a value the stage dropped exactly once: acked, reported ok, no handler call", () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable, flush }) => {
      const { messages, acks } = messagesOf(scheduler, [gatewayEvent({ text: "drop me" })]);
      let calls = 0;
      const pipeline = new Pipeline().use("beforeDispatch", filter(() => false));
      const { opts, settled } = options(scheduler, pipeline, () => (calls++, timer(1)));
      expectObservable(turn$(messages, opts)).toBe("(s|)", { s: "settled" });
      flush();
      expect(acks()).toEqual([1]);
      expect(settled).toEqual([expect.objectContaining({ ok: true })]);
      expect(calls).toBe(0);
    });
  });

  it("settles a value the stage failed on exactly once, logged stage_failed", () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable, flush }) => {
      const { messages, acks } = messagesOf(scheduler, [gatewayEvent({ text: "boom" })]);
      const pipeline = new Pipeline().use(
        "beforeDispatch",
        map(() => {
          throw new Error("stage bug");
        }),
      );
      const { opts, settled, records } = options(scheduler, pipeline, () => timer(1));
      expectObservable(turn$(messages, opts)).toBe("(s|)", { s: "settled" });
      flush();
      expect(acks()).toEqual([1]);
      expect(settled).toEqual([expect.objectContaining({ ok: false })]);
      expect(records.filter((r) => r.msg === "turn failed").map((r) => r.reason)).toEqual(["stage_failed"]);
    });
  });

  it("settles an asynchronous stage's drop when the stage completes, not before", () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, flush }) => {
      const { messages, acks } = messagesOf(scheduler, [gatewayEvent({ text: "slow drop" })]);
      const pipeline = new Pipeline().use("beforeDispatch", (events) => cold<GatewayEvent>("---|").pipe((empty) => (events.subscribe(), empty)));
      const { opts } = options(scheduler, pipeline, () => timer(1));
      expectObservable(turn$(messages, opts)).toBe("---(s|)", { s: "settled" });
      flush();
      expect(acks()).toEqual([1]);
    });
  });

  it("runs every value a fanning-out stage emits and settles once, after the last handler", () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable, flush }) => {
      const { messages, acks } = messagesOf(scheduler, [gatewayEvent({ text: "fan" })]);
      const pipeline = new Pipeline().use("beforeDispatch", (events) =>
        events.pipe((source) => new Observable<GatewayEvent>((s) => source.subscribe({ next: (e) => (s.next({ ...e, event_id: "a" }), s.next({ ...e, event_id: "b" })), complete: () => s.complete() }))),
      );
      const durations: Record<string, number> = { a: 5, b: 10 };
      const { opts, settled } = options(scheduler, pipeline, ({ event }) => timer(durations[event.event_id] ?? 0));
      expectObservable(turn$(messages, opts)).toBe("----------(s|)", { s: "settled" });
      flush();
      expect(acks()).toEqual([1]);
      expect(settled).toHaveLength(1);
    });
  });

  it("fails the turn when the handler errors (settled, ok false) and with no handler (no_agent)", () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable, flush }) => {
      const failing = messagesOf(scheduler, [gatewayEvent({ text: "x" })]);
      const a = options(scheduler, new Pipeline(), () => timer(2).pipe(map(() => {
        throw new Error("agent died");
      })));
      expectObservable(turn$(failing.messages, a.opts)).toBe("--(s|)", { s: "settled" });
      const none = messagesOf(scheduler, [gatewayEvent({ text: "y" })]);
      const b = options(scheduler, new Pipeline(), undefined);
      expectObservable(turn$(none.messages, b.opts)).toBe("(s|)", { s: "settled" });
      flush();
      expect(failing.acks()).toEqual([1]);
      expect(a.settled[0]?.ok).toBe(false);
      expect(b.records.find((r) => r.msg === "turn failed")?.reason).toBe("no_agent");
    });
  });

  it("defers a turn whose shared state was unreachable before anything was sent: nothing acked", () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable, flush }) => {
      const { messages, acks } = messagesOf(scheduler, [gatewayEvent({ text: "later" })]);
      const { opts, settled, records } = options(scheduler, new Pipeline(), () => throwError(() => new StateStoreError("dedupe", "claim", "k", { cause: new Error("down") })));
      expectObservable(turn$(messages, opts)).toBe("(d|)", { d: "deferred" });
      flush();
      expect(acks()).toEqual([0]);
      expect(settled).toEqual([]);
      expect(records.find((r) => r.msg === "turn deferred")?.reason).toBe("state_unavailable");
    });
  });

  it("triages a proactive event in the lane: a suppressed one settles without a handler call", () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable, flush }) => {
      const settings = settingsFromConfig({ enabled: true, timezone: "UTC", cooldown_secs: 900, daily_cap: 8, dedupe_window_secs: 3600 });
      const store = new MemoryTriageStore();
      const proactive = (id: string) => gatewayEvent({ text: "reminder", proactive: true, event_id: id });
      const first = messagesOf(scheduler, [proactive("p1")]);
      const second = messagesOf(scheduler, [proactive("p2")]);
      let calls = 0;
      const a = options(scheduler, new Pipeline(), () => (calls++, timer(1)), { triage: { settings, store, scheduler } });
      expectObservable(turn$(first.messages, a.opts)).toBe("-(s|)", { s: "settled" });
      // Inside the cooldown: suppressed.
      expectObservable(turn$(second.messages, a.opts)).toBe("(s|)", { s: "settled" });
      flush();
      expect(calls).toBe(1);
      expect(second.acks()).toEqual([1]);
      expect(a.records.map((r) => r.msg)).toContain("proactive event suppressed by triage");
    });
  });

  it("triages the same with a store that answers within the call and one that answers later by Observable", () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, flush }) => {
      const settings = settingsFromConfig({ enabled: true, timezone: "UTC", cooldown_secs: 900, daily_cap: 8, dedupe_window_secs: 3600 });
      const inner = new MemoryTriageStore();
      // No readNow / compareAndSetNow: the turn subscribes to the store's answers, 2 frames each.
      const later = {
        read: (key: string) => cold("--(a|)", { a: undefined }).pipe(concatMap(() => inner.read(key))),
        compareAndSet: (...args: Parameters<MemoryTriageStore["compareAndSet"]>) => cold("--(a|)", { a: undefined }).pipe(concatMap(() => inner.compareAndSet(...args))),
        sweep: (cutoffMs: number) => inner.sweep(cutoffMs),
      };
      const proactive = (id: string) => gatewayEvent({ text: "reminder", proactive: true, event_id: id });
      let calls = 0;
      const handler: TurnHandler = () => (calls++, EMPTY);
      const now = options(scheduler, new Pipeline(), handler, { triage: { settings, store: new MemoryTriageStore(), scheduler } });
      const streamed = options(scheduler, new Pipeline(), handler, { triage: { settings, store: later, scheduler } });
      const both = (opts: TurnRunOptions) => concat(turn$(messagesOf(scheduler, [proactive("p1")]).messages, opts), turn$(messagesOf(scheduler, [proactive("p2")]).messages, opts));
      // Within the call: woken and settled at once, then suppressed inside the cooldown, at once.
      expectObservable(both(now.opts)).toBe("(ss|)", { s: "settled" });
      // By Observable: each turn reads (2 frames) and writes (2: the suppressed one remembers its id).
      expectObservable(both(streamed.opts)).toBe("----s---(s|)", { s: "settled" });
      flush();
      expect(calls).toBe(2);
      const verdicts = (records: typeof now.records) => records.filter((r) => r.msg === "proactive event suppressed by triage").length;
      expect([verdicts(now.records), verdicts(streamed.records)]).toEqual([1, 1]);
      expect(now.settled.map((t) => t.ok)).toEqual([true, true]);
      expect(streamed.settled.map((t) => t.ok)).toEqual([true, true]);
    });
  });

  it("settles a proactive event once, failed, when the store throws within the call", () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable, flush }) => {
      const settings = settingsFromConfig({ enabled: true, timezone: "UTC", cooldown_secs: 900, daily_cap: 8, dedupe_window_secs: 3600 });
      const store = new MemoryTriageStore();
      store.readNow = () => {
        throw new Error("store down");
      };
      const { messages, acks } = messagesOf(scheduler, [gatewayEvent({ text: "reminder", proactive: true, event_id: "p1" })]);
      let calls = 0;
      const { opts, settled, records } = options(scheduler, new Pipeline(), () => (calls++, EMPTY), { triage: { settings, store, scheduler } });
      expectObservable(turn$(messages, opts)).toBe("(s|)", { s: "settled" });
      flush();
      expect(calls).toBe(0);
      expect(acks()).toEqual([1]);
      expect(settled.map((t) => t.ok)).toEqual([false]);
      expect(records.find((r) => r.msg === "turn failed")?.reason).toBe("turn_failed");
    });
  });

  it("cancels the running handler when unsubscribed, and settles nothing", () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable, flush }) => {
      const { messages, acks } = messagesOf(scheduler, [gatewayEvent({ text: "long" })]);
      let unsubscribed = false;
      const handler: TurnHandler = () => new Observable(() => () => (unsubscribed = true));
      const { opts, settled } = options(scheduler, new Pipeline(), handler);
      expectObservable(turn$(messages, opts), "--!").toBe("--");
      flush();
      expect(unsubscribed).toBe(true);
      expect(acks()).toEqual([0]);
      expect(settled).toEqual([]);
    });
  });

  describe("what a turn counts (instruments)", () => {
    const reply = (text: string, command?: OutboundMessage["command"]): OutboundMessage => ({
      reply_to: "e1",
      platform: "telegram",
      channel: { id: "c1" },
      content: { type: "text", text },
      ...(command === undefined ? {} : { command }),
    });
    /** A gateway that acks each send 5 ms after it is asked. */
    const ackIn5 = (scheduler: SchedulerLike) => () => timer(5, scheduler).pipe(map(() => ({ messageId: "m" })));

    const shaped$ = (messages: DurableMessage<GatewayEvent>[], receivedAt: number, opts: TurnRunOptions) =>
      new Observable<TurnEnd>((subscriber) =>
        runTurn(messages, { dropped: [], marked: false, receivedAt }, opts, (end) => {
          subscriber.next(end);
          subscriber.complete();
        }),
      );

    it("times the first message from the event's arrival and each gap between new messages (edits are not bubbles)", () => {
      const scheduler = testScheduler();
      scheduler.run(({ expectObservable }) => {
        const { messages } = messagesOf(scheduler, [gatewayEvent({ text: "hi" })]);
        const { instruments, calls } = recordingInstruments();
        // Arrived 50 ms before its turn began; bubbles asked at 100 and 400 ms (acked at 105 and 405), an edit between them.
        const handler: TurnHandler = (_, context) =>
          concat(timer(100), context.send(reply("one")), timer(100), context.send(reply("one, edited", "edit_message")), timer(190), context.send(reply("two"))).pipe(ignoreElements());
        const { opts } = options(scheduler, new Pipeline(), handler, { send: ackIn5(scheduler), instruments });
        expectObservable(shaped$(messages, -50, opts)).toBe("405ms (s|)", { s: "settled" });
        scheduler.flush();
        expect(calls).toEqual([
          ["firstMessage", 0.155],
          ["bubbleGap", 0.3],
          ["events", "turn", 1],
          ["turnSettled", "completed", 0.405],
        ]);
      });
    });

    it("counts a turn per event: completed, agent_error (noted by the handler), failed", () => {
      const scheduler = testScheduler();
      scheduler.run(({ expectObservable }) => {
        const { instruments, calls } = recordingInstruments();
        const run = (handler: TurnHandler) => {
          const { messages } = messagesOf(scheduler, [gatewayEvent({ text: "a" }), gatewayEvent({ text: "b" })]);
          return turn$(messages, options(scheduler, new Pipeline(), handler, { instruments }).opts);
        };
        expectObservable(run(() => timer(10))).toBe("10ms (s|)", { s: "settled" });
        expectObservable(run((_, context) => (context.note?.("agent_error"), timer(20)))).toBe("20ms (s|)", { s: "settled" });
        expectObservable(run(() => timer(30).pipe(concatMap(() => throwError(() => new Error("agent gone")))))).toBe("30ms (s|)", { s: "settled" });
        scheduler.flush();
        expect(calls).toEqual([
          ["events", "turn", 2],
          ["turnSettled", "completed", 0.01],
          ["events", "turn", 2],
          ["turnSettled", "agent_error", 0.02],
          ["events", "turn", 2],
          ["turnSettled", "failed", 0.03],
        ]);
      });
    });

    it("counts events that ran no turn by their fate: dropped by the stage, a duplicate the handler skipped, suppressed by triage", () => {
      const scheduler = testScheduler();
      scheduler.run(({ expectObservable }) => {
        const { instruments, calls } = recordingInstruments();
        const dropped = messagesOf(scheduler, [gatewayEvent({ text: "drop me" })]);
        const dropping = new Pipeline().use("beforeDispatch", filter(() => false));
        expectObservable(turn$(dropped.messages, options(scheduler, dropping, () => timer(1), { instruments }).opts)).toBe("(s|)", { s: "settled" });
        const skipped = messagesOf(scheduler, [gatewayEvent({ text: "again" })]);
        const skipping: TurnHandler = (_, context) => (context.note?.("duplicate"), EMPTY);
        expectObservable(turn$(skipped.messages, options(scheduler, new Pipeline(), skipping, { instruments }).opts)).toBe("(s|)", { s: "settled" });
        const settings = settingsFromConfig({ enabled: true, timezone: "UTC", cooldown_secs: 900, daily_cap: 8, dedupe_window_secs: 3600 });
        const triage = { settings, store: new MemoryTriageStore(), scheduler };
        const proactive = (id: string) => messagesOf(scheduler, [gatewayEvent({ text: "reminder", proactive: true, event_id: id })]);
        const triaged = options(scheduler, new Pipeline(), () => timer(1), { instruments, triage }).opts;
        expectObservable(turn$(proactive("p1").messages, triaged)).toBe("-(s|)", { s: "settled" });
        expectObservable(turn$(proactive("p2").messages, triaged)).toBe("(s|)", { s: "settled" });
        scheduler.flush();
        expect(calls).toEqual([
          ["events", "dropped", 1],
          ["events", "duplicate", 1],
          ["triageDecision", "wake", "none"],
          ["triageDecision", "suppressed", "cooldown"],
          ["events", "suppressed", 1],
          ["events", "turn", 1],
          ["turnSettled", "completed", 0.001],
        ]);
      });
    });
  });
});
