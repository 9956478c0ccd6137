import { afterEach, describe, expect, it } from "vitest";
import { startStack, until, userEvent, type Stack, stackBuses, useStackBus } from "../helpers/stack.js";

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

/** `HH:MM` in UTC, `offsetMinutes` from now. */
function utcClock(offsetMinutes: number): string {
  const at = new Date(Date.now() + offsetMinutes * 60_000);
  return `${String(at.getUTCHours()).padStart(2, "0")}:${String(at.getUTCMinutes()).padStart(2, "0")}`;
}

/** OpenAB's triage.toml, with the quiet window placed around now or away from it. */
async function triageStack(quiet: "now" | "later", overrides: { cooldown_secs?: number; daily_cap?: number } = {}) {
  const quiet_hours = quiet === "now" ? `${utcClock(-60)}-${utcClock(60)}` : `${utcClock(120)}-${utcClock(180)}`;
  return startStack({
    agentEnv: { SCENARIO: "envelope" },
    config: {
      delivery: { mode: "structured", bubble_delay_ms: 200 },
      triage: { enabled: true, quiet_hours, timezone: "UTC", cooldown_secs: 60, daily_cap: 3, dedupe_window_secs: 3600, ...overrides },
    },
  });
}

const proactive = (text: string, eventId?: string) => userEvent(text, { proactive: true, ...(eventId === undefined ? {} : { event_id: eventId }) });
const decisions = (s: Stack) =>
  s.records.filter((r) => r.msg === "proactive event admitted by triage" || r.msg === "proactive event suppressed by triage").map((r) => (r.decision === "wake" ? "wake" : String(r.reason)));

const collapsed = (s: Stack) =>
  s.records.filter((r) => r.msg === "duplicate event collapsed").map((r) => ({ decision: r.decision, reason: r.reason, event_id: r.event_id }));

describe.each(stackBuses())("triage end to end (OpenAB's triage.toml flow) (%s bus)", (bus) => {
  useStackBus(bus);
  it("delivers a human message during quiet hours and suppresses a proactive one with reason quiet_hours", async () => {
    stack = await triageStack("now");
    stack.gateway.broadcast(userEvent("hello"));
    await stack.replyCount(3);
    stack.gateway.broadcast(proactive("New mail from airline@example.com: flight delayed"));
    expect(await until(() => decisions(stack!).length === 1, 10_000)).toBe(true);
    expect(decisions(stack)).toEqual(["quiet_hours"]);
    expect(stack.records.find((r) => r.msg === "proactive event suppressed by triage")).toMatchObject({
      decision: "suppressed",
      reason: "quiet_hours",
      platform: "telegram",
      channel: "chat-1",
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stack.replies).toHaveLength(3);
  });

  it("outside quiet hours: a wake, then a repeat within the cooldown, then the same event id twice", async () => {
    stack = await triageStack("later");
    stack.gateway.broadcast(proactive("news 1"));
    await stack.replyCount(3);
    stack.gateway.broadcast(proactive("news 2"));
    stack.gateway.broadcast(proactive("retry", "evt_42"));
    stack.gateway.broadcast(proactive("retry", "evt_42"));
    expect(await until(() => decisions(stack!).length === 3 && collapsed(stack!).length === 1, 10_000)).toBe(true);
    // The first evt_42 is recorded, then suppressed by the cooldown; the second never reaches a
    // worker: the turn stream collapses a repeated platform:event_id (the bus's dedupe window),
    // logged with reason duplicate.
    expect(decisions(stack)).toEqual(["wake", "cooldown", "cooldown"]);
    expect(collapsed(stack)).toEqual([{ decision: "suppressed", reason: "duplicate", event_id: "evt_42" }]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stack.replies).toHaveLength(3);
  });

  it("the fourth wake of the day with daily_cap 3 is suppressed with reason daily_cap", async () => {
    stack = await triageStack("later", { cooldown_secs: 0 });
    for (let i = 1; i <= 3; i++) {
      stack.gateway.broadcast(proactive(`news ${i}`));
      await stack.replyCount(3 * i);
    }
    stack.gateway.broadcast(proactive("news 4"));
    expect(await until(() => decisions(stack!).length === 4, 10_000)).toBe(true);
    expect(decisions(stack)).toEqual(["wake", "wake", "wake", "daily_cap"]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stack.replies).toHaveLength(9);
  });

  it("lets proactive events through when triage is disabled", async () => {
    stack = await startStack({ agentEnv: { SCENARIO: "prose" } });
    stack.gateway.broadcast(proactive("news"));
    stack.gateway.broadcast(proactive("news again"));
    await stack.replyCount(2);
    expect(decisions(stack)).toEqual([]);
  });
});
