import { Subscription, type SchedulerLike } from "rxjs";
import { describe, expect, it } from "vitest";
import { takeTokens } from "../../../../operators/delivery/flow/conversationBuckets.js";
import type { PlatformRateLimits } from "../../../../operators/delivery/flow/platformRateLimits.js";
import { RememberedConversations } from "../../../../operators/delivery/flow/rememberedConversations.js";

const telegram: PlatformRateLimits = { perConversation: { messages: 1, perSecs: 1, burst: 1 }, conversationCounts: new Set(["message"]), botCounts: new Set() };

/** A scheduler whose clock the test sets; nothing here schedules. */
function clock(): SchedulerLike & { time: number } {
  const scheduler = { time: 0, now: () => scheduler.time, schedule: () => new Subscription() };
  return scheduler;
}

describe("RememberedConversations", () => {
  it("asks for a platform's limits once, a platform without limits too", () => {
    const asked: string[] = [];
    const remembered = new RememberedConversations((name) => (asked.push(name), name === "telegram" ? telegram : undefined), clock(), 10);
    expect(remembered.platform("telegram")).toBe(remembered.platform("telegram"));
    expect(remembered.platform("discord")).toBeUndefined();
    expect(remembered.platform("discord")).toBeUndefined();
    expect(asked).toEqual(["telegram", "discord"]);
  });

  it("past maxKeys, a new conversation forgets those as good as new and keeps the busy ones", () => {
    const scheduler = clock();
    const remembered = new RememberedConversations(() => telegram, scheduler, 2);
    const platform = remembered.platform("telegram");
    if (platform === undefined) throw new Error("telegram has limits");
    const x = remembered.conversation(platform, "x");
    expect(remembered.conversation(platform, "x")).toBe(x);
    takeTokens(x, false, 0);
    remembered.conversation(platform, "y");
    remembered.conversation(platform, "z");
    expect([...platform.conversations.keys()]).toEqual(["x", "z"]);
    // By 1000 x's bucket is full again: the next sweep forgets it.
    scheduler.time = 1000;
    remembered.conversation(platform, "w");
    expect([...platform.conversations.keys()]).toEqual(["w"]);
  });
});
