import { describe, expect, it } from "vitest";
import { useFakeBotApi } from "../fakes/telegram/fakeBotApiFixture.js";
import { crashAndRestart } from "../helpers/telegramCrash.js";

// Issue 38's acceptance on the embedded bus, at its size: 200 updates from 20 users pending when
// `turnstream run` is killed with SIGKILL, then started again on the same state dir — every update
// answered exactly once (plainly, or marked as a recovered reply for a turn whose answer hung at
// the kill), in order per conversation. The 20-update sibling in `npm test` is telegramCrash.test.ts.

const fake = useFakeBotApi();

describe("a Telegram bot on the embedded bus killed with SIGKILL while 200 updates are pending", () => {
  it("answers every update once after the restart, in order per conversation", async () => {
    const users = 20;
    const run = await crashAndRestart(fake.api, { users, perUser: 10, turnMs: 200, killAfter: 50, holdConfirmation: false, answerWithinMs: 150_000 });
    expect(run.firstExit.signal).toBe("SIGKILL");
    expect(run.secondExit).toEqual({ code: 0, signal: null });
    expect(run.sent).toBe(200);
    expect(run.answeredAtKill).toBeGreaterThan(0);
    expect(run.answeredAtKill).toBeLessThan(200);
    for (const { prompt, plain, marked } of run.answers) expect(plain + marked, prompt).toBe(1);
    expect(run.answers.filter((answer) => answer.marked > 0).length).toBeLessThanOrEqual(users);
    expect(run.orderSeen).toEqual(run.orderSent);
    const restored = run.restartLogs.find((line) => line.msg === "turn queue read from its journal");
    expect(restored?.queued).toBeGreaterThan(0);
  }, 300_000);
});
