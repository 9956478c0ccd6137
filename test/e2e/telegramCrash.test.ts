import { describe, expect, it } from "vitest";
import { useFakeBotApi } from "../fakes/telegram/fakeBotApiFixture.js";
import { crashAndRestart, type CrashRun } from "../helpers/telegramCrash.js";

// Issue 38, "Nothing lost, nothing twice", on the embedded bus: `turnstream run` with [telegram]
// and a state dir, killed with SIGKILL while updates are pending, then started again on the same
// state dir. The turn queue's journal brings back what Telegram was told had arrived; its msgIds
// collapse what Telegram hands over again; the delivery ledger marks the re-run of a turn that had
// begun sending. Every update is answered exactly once. (Answers hang at the fake just before the
// kill, so none is between Telegram and the ledger then: a turn killed there answers once more,
// marked — the window no broker closes, scaling.md "The embedded bus after a crash".)
// The 200-update run is telegramCrash.load.test.ts.

const fake = useFakeBotApi();

/** What every run must show, whatever the moment of the kill. */
function expectAnsweredOnce(run: CrashRun, users: number): void {
  expect(run.firstExit.signal).toBe("SIGKILL");
  expect(run.secondExit).toEqual({ code: 0, signal: null });
  // Killed mid-stream: some answers were out, not all.
  expect(run.answeredAtKill).toBeGreaterThan(0);
  expect(run.answeredAtKill).toBeLessThan(run.sent);
  expect(run.answers).toHaveLength(run.sent);
  // Once each: plainly, or — a turn whose answer hung at the kill, which had begun sending — marked.
  for (const { prompt, plain, marked } of run.answers) expect(plain + marked, prompt).toBe(1);
  // Only a turn running at the kill can re-run marked: one per conversation at most.
  expect(run.answers.filter((answer) => answer.marked > 0).length).toBeLessThanOrEqual(users);
  // Per conversation, in the order sent, across the restart.
  expect(run.orderSeen).toEqual(run.orderSent);
  const restored = run.restartLogs.find((line) => line.msg === "turn queue read from its journal");
  expect(restored?.queued).toBeGreaterThan(0);
}

describe("a Telegram bot on the embedded bus killed with SIGKILL and started again", () => {
  it("answers every pending update once: Telegram was told, the journal brings back what had not run", async () => {
    const run = await crashAndRestart(fake.api, { users: 5, perUser: 4, turnMs: 300, killAfter: 6, holdConfirmation: false, answerWithinMs: 45_000 });
    expectAnsweredOnce(run, 5);
  }, 180_000);

  it("answers every update once when Telegram hands them all over again: the journal's msgIds collapse them", async () => {
    const run = await crashAndRestart(fake.api, { users: 5, perUser: 4, turnMs: 300, killAfter: 6, holdConfirmation: true, answerWithinMs: 45_000 });
    expectAnsweredOnce(run, 5);
    // All 20 came back from Telegram; each one's event was journaled, queued or done.
    expect(run.restartLogs.filter((line) => line.msg === "duplicate event collapsed")).toHaveLength(run.sent);
  }, 180_000);
});
