import { describe, expect, it } from "vitest";
import { SessionTurns, type Turn } from "../../src/acp/sessionTurns.js";

const late = (warn: boolean) => ({ drop: { reason: "late_update", warn } });
const noTurn = { drop: { reason: "no_turn", warn: false } };

function opened(turns: SessionTurns<string>, sessionId: string, owner: string): Turn<string> {
  const turn = turns.open(sessionId, owner);
  if (turn === undefined) throw new Error(`a turn already runs on ${sessionId}`);
  return turn;
}

describe("SessionTurns", () => {
  it("drops an update before any prompt of the session as no_turn, never warned", () => {
    const turns = new SessionTurns<string>();
    expect(turns.route("s1")).toEqual(noTurn);
    expect(turns.route("s1")).toEqual(noTurn);
  });

  it("routes a session's updates to its running turn, and only that session's", () => {
    const turns = new SessionTurns<string>();
    opened(turns, "s1", "turn 1");
    expect(turns.route("s1")).toEqual({ owner: "turn 1" });
    expect(turns.route("s2")).toEqual(noTurn);
  });

  it("refuses a second turn while one runs on the session, not on another session", () => {
    const turns = new SessionTurns<string>();
    opened(turns, "s1", "turn 1");
    expect(turns.open("s1", "turn 2")).toBeUndefined();
    expect(turns.open("s2", "other")).toBeDefined();
    expect(turns.route("s1")).toEqual({ owner: "turn 1" });
  });

  it("drops updates after the answer as late_update: warned for the first, debug for the rest", () => {
    const turns = new SessionTurns<string>();
    turns.answered(opened(turns, "s1", "turn 1"));
    expect(turns.route("s1")).toEqual(late(true));
    expect(turns.route("s1")).toEqual(late(false));
    expect(turns.route("s1")).toEqual(late(false));
  });

  it("warns again for the first late update after each new turn", () => {
    const turns = new SessionTurns<string>();
    turns.answered(opened(turns, "s1", "turn 1"));
    expect(turns.route("s1")).toEqual(late(true));
    const second = opened(turns, "s1", "turn 2");
    expect(turns.route("s1")).toEqual({ owner: "turn 2" });
    turns.answered(second);
    expect(turns.route("s1")).toEqual(late(true));
    expect(turns.route("s1")).toEqual(late(false));
  });

  it("keeps warnings per session", () => {
    const turns = new SessionTurns<string>();
    turns.answered(opened(turns, "s1", "a"));
    turns.answered(opened(turns, "s2", "b"));
    expect(turns.route("s1")).toEqual(late(true));
    expect(turns.route("s2")).toEqual(late(true));
    expect(turns.route("s1")).toEqual(late(false));
  });

  it("detaching a turn makes its session's updates late; a new turn can open", () => {
    const turns = new SessionTurns<string>();
    const first = opened(turns, "s1", "turn 1");
    turns.detach(first);
    expect(turns.route("s1")).toEqual(late(true));
    expect(turns.open("s1", "turn 2")).toBeDefined();
  });

  it("gives a turn opened while an abandoned prompt is unanswered nothing until that prompt is answered", () => {
    const turns = new SessionTurns<string>();
    const abandoned = opened(turns, "s1", "turn 1");
    turns.detach(abandoned); // unsubscribed before the agent answered
    opened(turns, "s1", "turn 2");
    // The agent is still on turn 1's prompt: its updates are late, never turn 2's.
    expect(turns.route("s1")).toEqual(late(true));
    expect(turns.route("s1")).toEqual(late(false));
    turns.answered(abandoned);
    expect(turns.route("s1")).toEqual({ owner: "turn 2" });
  });

  it("an answer to a later prompt ends the older unanswered ones too", () => {
    const turns = new SessionTurns<string>();
    const abandoned = opened(turns, "s1", "turn 1");
    turns.detach(abandoned);
    const second = opened(turns, "s1", "turn 2");
    turns.answered(second);
    turns.answered(abandoned); // a stale answer changes nothing
    const third = opened(turns, "s1", "turn 3");
    expect(turns.route("s1")).toEqual({ owner: "turn 3" });
    turns.answered(third);
    expect(turns.route("s1")).toEqual(late(true));
  });

  it("detaching a settled turn leaves the session's newer running turn alone", () => {
    const turns = new SessionTurns<string>();
    const first = opened(turns, "s1", "turn 1");
    turns.answered(first);
    opened(turns, "s1", "turn 2");
    turns.detach(first);
    turns.answered(first);
    expect(turns.route("s1")).toEqual({ owner: "turn 2" });
  });

  it("marks only the running turn cancelled, and forgets it once the turn is detached", () => {
    const turns = new SessionTurns<string>();
    turns.markCancelled("s1"); // no turn: nothing to mark
    const first = opened(turns, "s1", "turn 1");
    expect(turns.isCancelled("s1")).toBe(false);
    turns.markCancelled("s1");
    expect(turns.isCancelled("s1")).toBe(true);
    expect(first.cancelled).toBe(true);
    expect(turns.isCancelled("s2")).toBe(false);
    turns.answered(first);
    expect(turns.isCancelled("s1")).toBe(false);
    opened(turns, "s1", "turn 2");
    expect(turns.isCancelled("s1")).toBe(false);
  });
});
