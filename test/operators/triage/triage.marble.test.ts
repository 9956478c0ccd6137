import type { SchedulerLike } from "rxjs";
import type { TestScheduler } from "rxjs/testing";
import { describe, expect, it } from "vitest";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { parseGatewayFrame } from "../../../operators/ingress/frames/gatewayFrames.js";
import { admit } from "../../../operators/triage/admit.js";
import { parseQuietHours } from "../../../operators/triage/quietHours.js";
import { triage, type TriageDecision } from "../../../operators/triage/triage.js";
import { DISABLED_TRIAGE, settingsFromConfig, type TriageSettings } from "../../../operators/triage/triageSettings.js";
import { cooldownVerdict, dailyCapVerdict, DUPLICATE, QUIET_HOURS, type TriageVerdict, WAKE } from "../../../operators/triage/triageVerdict.js";
import { resolveConfig } from "../../../src/config/index.js";
import { MemoryTriageStore } from "../../../src/state/triageStore.js";
import { gatewayEvent } from "../../helpers/events.js";
import { testScheduler } from "../../helpers/marbles.js";
import { at, enabled } from "./conversations.js";
import { CountingStore, slowStore, untouchableStore } from "./stores.js";

const proactive = (id: string, channel = "c1", extra: Partial<GatewayEvent> = {}): GatewayEvent =>
  gatewayEvent({ event_id: id, channel: { id: channel, type: "dm" }, proactive: true, ...extra });
const human = (id: string, channel = "c1"): GatewayEvent => gatewayEvent({ event_id: id, channel: { id: channel, type: "dm" } });

/** Marble values for decisions: `decide({ a: [event, verdict] })`. */
const decide = (values: Record<string, [GatewayEvent, TriageVerdict]>): Record<string, TriageDecision> =>
  Object.fromEntries(Object.entries(values).map(([name, [event, verdict]]) => [name, { event, verdict }]));

/** The test scheduler's virtual time, starting at `startMs` (an epoch instant) instead of 0. */
const clockFrom = (scheduler: TestScheduler, startMs: number): SchedulerLike => ({
  now: () => startMs + scheduler.now(),
  schedule: scheduler.schedule.bind(scheduler),
});

/** The strictest triage: always quiet, one wake a day, 15 min cooldown, ids remembered an hour. */
const strict: TriageSettings = enabled({ quietHours: parseQuietHours("00:00-23:59"), cooldownSecs: 900, dailyCap: 1, dedupeWindowSecs: 3600 });
const configured = (triage: Record<string, unknown>) => settingsFromConfig(resolveConfig({ triage }, { env: {} }).triage);

describe("triage: gateway.rs", () => {
  it("a_human_message_is_never_triaged", () => {
    const values = { a: human("evt-1"), b: human("evt-1"), c: human("evt-2") };
    testScheduler().run(({ cold, expectObservable }) => {
      const out = cold("a-b-c|", values).pipe(triage({ settings: strict, store: untouchableStore }));
      expectObservable(out).toBe("a-b-c|", decide({ a: [values.a, WAKE], b: [values.b, WAKE], c: [values.c, WAKE] }));
    });
  });

  it("a_proactive_event_passes_when_triage_is_disabled", () => {
    const values = { a: proactive("evt-1"), b: proactive("evt-1"), c: proactive("evt-2") };
    for (const settings of [DISABLED_TRIAGE, configured({ enabled: false, quiet_hours: "00:00-23:59", daily_cap: 1 })]) {
      testScheduler().run(({ cold, expectObservable }) => {
        const out = cold("abc|", values).pipe(triage({ settings, store: untouchableStore }));
        expectObservable(out).toBe("abc|", decide({ a: [values.a, WAKE], b: [values.b, WAKE], c: [values.c, WAKE] }));
      });
    }
  });

  it("a_redelivered_proactive_event_is_suppressed_once_admitted", () => {
    const values = { a: proactive("evt-1"), b: proactive("evt-1") };
    testScheduler().run(({ cold, expectObservable }) => {
      // The config's defaults once enabled: cooldown 900, cap 8, ids remembered 3600 s.
      const out = cold("a 29999ms b|", values).pipe(triage({ settings: configured({ enabled: true }), store: new MemoryTriageStore() }));
      expectObservable(out).toBe("a 29999ms b|", decide({ a: [values.a, WAKE], b: [values.b, DUPLICATE] }));
    });
  });

  it("an_event_without_the_proactive_field_defaults_to_human", () => {
    const frame = (extra: object) =>
      JSON.stringify({
        schema: "openab.gateway.event.v1",
        event_id: "evt-1",
        platform: "telegram",
        channel: { id: "c1", type: "dm" },
        sender: { id: "u1", name: "ann", display_name: "Ann", is_bot: false },
        content: { type: "text", text: "hi" },
        mentions: [],
        message_id: "m1",
        ...extra,
      });
    const parsed = (extra: object): GatewayEvent => {
      const result = parseGatewayFrame(frame(extra), 1 << 20);
      if (result.kind !== "event") throw new Error(`not an event: ${result.kind}`);
      return result.event;
    };
    const values = { a: parsed({}), b: parsed({ proactive: true }) };
    expect(values.a.proactive).toBe(false);
    testScheduler().run(({ cold, expectObservable }) => {
      const out = cold("ab|", values).pipe(triage({ settings: strict, store: new MemoryTriageStore() }));
      expectObservable(out).toBe("ab|", decide({ a: [values.a, WAKE], b: [values.b, QUIET_HOURS] }));
    });
  });

  it("triage_counters_are_scoped_per_conversation", () => {
    const values = {
      a: proactive("e1", "c1"),
      b: proactive("e2", "c2"),
      c: proactive("e3", "c1", { channel: { id: "c1", type: "group", thread_id: "t7" } }),
      d: proactive("e4", "c1", { platform: "discord" }),
      e: proactive("e5", "c2"),
    };
    testScheduler().run(({ cold, expectObservable }) => {
      const out = cold("abcde|", values).pipe(triage({ settings: enabled({ dailyCap: 1 }), store: new MemoryTriageStore() }));
      // telegram:c1 and telegram:c2 each wake once; a thread of c1 spends c1's allowance; discord:c1 is its own.
      expectObservable(out).toBe(
        "abcde|",
        decide({ a: [values.a, WAKE], b: [values.b, WAKE], c: [values.c, dailyCapVerdict(1)], d: [values.d, WAKE], e: [values.e, dailyCapVerdict(1)] }),
      );
    });
  });
});

describe("triage: in virtual time", () => {
  it("reports the cooldown's remainder from scheduler time (the default clock, virtual inside run)", () => {
    const values = { a: proactive("e1"), b: proactive("e2"), c: proactive("e3"), d: proactive("e4") };
    testScheduler().run(({ cold, expectObservable }) => {
      const out = cold("a 299999ms b 599998ms cd|", values).pipe(triage({ settings: enabled({ cooldownSecs: 900 }), store: new MemoryTriageStore() }));
      // b at 300 000 ms, c at 899 999 ms (899 whole seconds), d at 900 000 ms.
      expectObservable(out).toBe(
        "a 299999ms b 599998ms cd|",
        decide({ a: [values.a, WAKE], b: [values.b, cooldownVerdict(600)], c: [values.c, cooldownVerdict(1)], d: [values.d, WAKE] }),
      );
    });
  });

  it("rolls the daily cap over at local midnight in Europe/Berlin (22:00Z in summer)", () => {
    const values = { a: proactive("e1"), b: proactive("e2"), c: proactive("e3"), d: proactive("e4") };
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const clock = clockFrom(scheduler, at("2026-08-25T21:58:00Z")); // 23:58 local
      const settings = enabled({ dailyCap: 1, timezone: "Europe/Berlin" });
      const out = cold("a 59999ms b 59999ms cd|", values).pipe(triage({ settings, store: new MemoryTriageStore(), scheduler: clock }));
      expectObservable(out).toBe(
        "a 59999ms b 59999ms cd|",
        decide({ a: [values.a, WAKE], b: [values.b, dailyCapVerdict(1)], c: [values.c, WAKE], d: [values.d, dailyCapVerdict(1)] }),
      );
    });
  });

  it("ends quiet hours at 08:00 local on the day Berlin springs forward", () => {
    const values = { a: proactive("e1"), b: proactive("e2") };
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const clock = clockFrom(scheduler, at("2026-03-29T05:59:00Z")); // 07:59 CEST
      const settings = enabled({ quietHours: parseQuietHours("22:00-08:00"), timezone: "Europe/Berlin" });
      const out = cold("a 59999ms b|", values).pipe(triage({ settings, store: new MemoryTriageStore(), scheduler: clock }));
      expectObservable(out).toBe("a 59999ms b|", decide({ a: [values.a, QUIET_HOURS], b: [values.b, WAKE] }));
    });
  });

  it("forgets an id after its window, and an empty id is never a duplicate", () => {
    const values = { a: proactive("evt_1"), b: proactive("evt_1"), c: proactive(""), d: proactive("") };
    testScheduler().run(({ cold, expectObservable }) => {
      const out = cold("a 60999ms b 9ms (cd)|", values).pipe(triage({ settings: enabled({ dedupeWindowSecs: 60 }), store: new MemoryTriageStore() }));
      expectObservable(out).toBe("a 60999ms b 9ms (cd)|", decide({ a: [values.a, WAKE], b: [values.b, WAKE], c: [values.c, WAKE], d: [values.d, WAKE] }));
    });
  });

  it("a clock that moves backwards keeps the cooldown shut", () => {
    const values = { a: proactive("e1"), b: proactive("e2") };
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      // A clock stepped back by 120 s between the two events (an NTP correction).
      const clock: SchedulerLike = { now: () => (scheduler.now() === 0 ? 600_000 : 480_000), schedule: scheduler.schedule.bind(scheduler) };
      const out = cold("a 9ms b|", values).pipe(triage({ settings: enabled({ cooldownSecs: 600 }), store: new MemoryTriageStore(), scheduler: clock }));
      expectObservable(out).toBe("a 9ms b|", decide({ a: [values.a, WAKE], b: [values.b, cooldownVerdict(600)] }));
    });
  });
});

describe("triage: one evaluation at a time per conversation", () => {
  it("two events arriving together cannot both pass a cooldown that allows one, even with a slow store", () => {
    const values = { a: proactive("e1"), b: proactive("e2") };
    const store = new CountingStore();
    testScheduler().run(({ cold, expectObservable }) => {
      // Read 2 frames, write 1: a decides at 3; b is read only then and sees a's wake.
      const out = cold("(ab|)", values).pipe(triage({ settings: enabled({ cooldownSecs: 900 }), store: slowStore(store, 2, 1) }));
      expectObservable(out).toBe("---a-(b|)", decide({ a: [values.a, WAKE], b: [values.b, cooldownVerdict(900)] }));
    });
    // Serialized, not merely rescued by compare-and-set: no evaluation ever read a stale state.
    expect(store).toMatchObject({ reads: 2, writes: 1 });
  });

  it("evaluates different conversations concurrently", () => {
    const values = { a: proactive("e1", "c1"), b: proactive("e2", "c2") };
    testScheduler().run(({ cold, expectObservable }) => {
      const store = slowStore(new MemoryTriageStore(), 2, 1);
      const out = cold("(ab|)", values).pipe(triage({ settings: enabled({ cooldownSecs: 900 }), store }));
      expectObservable(out).toBe("---(ab|)", decide({ a: [values.a, WAKE], b: [values.b, WAKE] }));
    });
  });

  it("a human message waits behind its conversation's evaluation, never behind another's", () => {
    const values = { a: proactive("e1", "c1"), h: human("h1", "c1"), g: human("g1", "c2") };
    testScheduler().run(({ cold, expectObservable }) => {
      const store = slowStore(new MemoryTriageStore(), 2, 1);
      const out = cold("(ahg|)", values).pipe(triage({ settings: enabled({ cooldownSecs: 900 }), store }));
      expectObservable(out).toBe("g--(ah|)", decide({ a: [values.a, WAKE], h: [values.h, WAKE], g: [values.g, WAKE] }));
    });
  });
});

describe("triage: the store", () => {
  it("never touches the store for human messages or when disabled", () => {
    const store = new CountingStore();
    testScheduler().run(({ cold, expectObservable }) => {
      const values = { a: human("h1"), b: proactive("e1") };
      expectObservable(cold("a|", values).pipe(triage({ settings: strict, store }))).toBe("a|", decide({ a: [values.a, WAKE] }));
      expectObservable(cold("b|", values).pipe(triage({ settings: DISABLED_TRIAGE, store }))).toBe("b|", decide({ b: [values.b, WAKE] }));
    });
    expect(store).toMatchObject({ reads: 0, writes: 0 });
  });

  it("reads once and writes once per decision that changes the state, and skips the write when nothing changed", () => {
    const store = new CountingStore();
    const values = { a: proactive("e1"), b: proactive("e2") };
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const settings = enabled({ quietHours: parseQuietHours("00:00-01:00"), cooldownSecs: 900 });
      const out = cold("a 59m b|", values).pipe(triage({ settings, store, scheduler: clockFrom(scheduler, at("2026-08-25T23:30:00Z")) }));
      expectObservable(out).toBe("a 59m b|", decide({ a: [values.a, WAKE], b: [values.b, QUIET_HOURS] }));
    });
    expect(store).toMatchObject({ reads: 2, writes: 1 });
  });

  it("keeps what a suppressed event recorded, and only wakes consume the allowance", () => {
    const inner = new MemoryTriageStore();
    const values = { a: proactive("e1"), b: proactive("e2"), c: proactive("e3") };
    testScheduler().run(({ cold, expectObservable }) => {
      const settings = enabled({ cooldownSecs: 60, dailyCap: 2, dedupeWindowSecs: 3600 });
      const out = cold("a 9999ms b 49999ms c|", values).pipe(triage({ settings, store: inner }));
      expectObservable(out).toBe("a 9999ms b 49999ms c|", decide({ a: [values.a, WAKE], b: [values.b, cooldownVerdict(50)], c: [values.c, WAKE] }));
    });
    let entry: { state: { count: number; lastWakeMs?: number } } | undefined;
    inner.read("telegram:c1").subscribe((value) => (entry = value));
    expect(entry?.state).toMatchObject({ count: 2, lastWakeMs: 60_000 });
    expect(admit(entry?.state, "e2", enabled({ dedupeWindowSecs: 3600 }), 61_000).verdict).toEqual(DUPLICATE);
  });
});
