import { describe, expect, it } from "vitest";
import { poolAdmission, type PoolView } from "../../../operators/dispatch/poolAdmission.js";

const view = (over: Partial<PoolView>): PoolView => ({ maxSessions: 2, used: 0, closing: 0, waiting: 0, idle: [], ...over });

describe("poolAdmission", () => {
  it("does nothing when nobody waits, even with idle sessions", () => {
    expect(poolAdmission(view({ used: 2, idle: [{ key: "a", lastActive: 1 }] }))).toEqual({ grant: 0, evict: [] });
  });

  it("grants free slots to the oldest waiters, never past max_sessions", () => {
    expect(poolAdmission(view({ waiting: 1 }))).toEqual({ grant: 1, evict: [] });
    expect(poolAdmission(view({ waiting: 5 }))).toEqual({ grant: 2, evict: [] });
    expect(poolAdmission(view({ waiting: 5, used: 1 }))).toEqual({ grant: 1, evict: [] });
    expect(poolAdmission(view({ waiting: 5, used: 2 }))).toEqual({ grant: 0, evict: [] });
  });

  it("suspends the least recently active idle sessions, one per waiter left over", () => {
    const idle = [
      { key: "new", lastActive: 30 },
      { key: "old", lastActive: 10 },
      { key: "mid", lastActive: 20 },
    ];
    expect(poolAdmission(view({ maxSessions: 3, used: 3, waiting: 1, idle }))).toEqual({ grant: 0, evict: ["old"] });
    expect(poolAdmission(view({ maxSessions: 3, used: 3, waiting: 2, idle }))).toEqual({ grant: 0, evict: ["old", "mid"] });
    expect(poolAdmission(view({ maxSessions: 3, used: 3, waiting: 9, idle }))).toEqual({ grant: 0, evict: ["old", "mid", "new"] });
  });

  it("counts agents already closing before it suspends more", () => {
    const idle = [{ key: "a", lastActive: 1 }];
    expect(poolAdmission(view({ used: 2, closing: 1, waiting: 1, idle }))).toEqual({ grant: 0, evict: [] });
    expect(poolAdmission(view({ used: 2, closing: 1, waiting: 2, idle }))).toEqual({ grant: 0, evict: ["a"] });
  });

  it("grants and suspends together: free slots first, then idle sessions for the rest", () => {
    const idle = [{ key: "a", lastActive: 1 }];
    expect(poolAdmission(view({ maxSessions: 3, used: 2, waiting: 2, idle }))).toEqual({ grant: 1, evict: ["a"] });
  });

  it("waits when every session is busy and none is closing", () => {
    expect(poolAdmission(view({ used: 2, waiting: 3 }))).toEqual({ grant: 0, evict: [] });
  });
});
