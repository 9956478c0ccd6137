import { afterEach, describe, expect, it } from "vitest";
import { someConversations, useFakeSlack } from "../fakes/slack/slackFixture.js";
import type { FakeSlack, RecordedCall } from "../fakes/slack/index.js";
import { startPlatformStack, type PlatformStack } from "../helpers/platformStack.js";
import { until } from "../helpers/stack.js";
import type { ConfigInput } from "../../src/config/index.js";

// Issue 39's acceptance for Slack, end to end: a broker whose only platform is [slack], over the
// fake Slack (Socket Mode and the Web API on 127.0.0.1), answering with the scripted agent. The
// event rules, mrkdwn and replies are pinned in test/platforms/slack/; here, what a person in the
// channel sees of a whole turn. Exact pacing is pinned in virtual time; here the bounds are generous.

const slack = useFakeSlack();
let stack: PlatformStack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

/** The scripted agent's `envelope`: three bubbles. */
const BUBBLES = ["on it", "your flight moved to 8pm", "gate B12"];

async function start(keys: Partial<NonNullable<ConfigInput["slack"]>> = {}, config: Omit<ConfigInput, "gateway" | "slack"> = {}): Promise<PlatformStack> {
  const fake: FakeSlack = slack.fake;
  stack = await startPlatformStack({
    config: { ...config, slack: { bot_token: fake.botToken, app_token: fake.appToken, api_root: fake.apiUrl, ...keys } },
    ready: (records) => records.some((r) => r.msg === "slack socket connected"),
  });
  return stack;
}

const posts = (thread: string): RecordedCall[] => slack.fake.callsOf("chat.postMessage").filter((call) => call.params.thread_ts === thread);

describe("Slack: conversations", () => {
  it("a mention at top level is answered in the thread under it; a reply in that thread is the same session", async () => {
    const { general, alice } = someConversations(slack.fake);
    const s = await start({}, { reactions: { enabled: false } });
    const said = slack.fake.from(alice).message(general.id, "@turnstream prose");
    // Text mode streams on Slack (as upstream): a … placeholder, updated into the reply.
    expect(await until(() => slack.fake.botTexts(general.id, { thread: said.ts })[0] === "hey what's up", 15_000)).toBe(true);

    slack.fake.from(alice).message(general.id, "text", { thread_ts: said.ts });
    expect(await until(() => slack.fake.botTexts(general.id, { thread: said.ts })[1] === "plain text reply, one message", 15_000)).toBe(true);
    expect(slack.fake.botTexts(general.id, { thread: said.ts })).toEqual(["hey what's up", "plain text reply, one message"]);
    // One ACP session for the thread: created once, prompted twice; nothing at the channel's top level.
    expect(s.agentEvents().filter((line) => line.startsWith("new "))).toHaveLength(1);
    expect(s.agentEvents().filter((line) => line.startsWith("prompt "))).toHaveLength(2);
    expect(slack.fake.shown(general.id).filter((m) => m.from_bot && m.thread_ts === undefined)).toEqual([]);
  });

  it("a user outside allowed_users gets no_entry_sign and no turn; an allowed one is answered", async () => {
    const { general, alice, bob } = someConversations(slack.fake);
    const s = await start({ allowed_users: [alice.id] }, { reactions: { enabled: false } });
    const denied = slack.fake.from(bob).message(general.id, "@turnstream prose");
    expect(await until(() => slack.fake.shown(general.id).find((m) => m.ts === denied.ts)?.reactions.includes("no_entry_sign") === true, 15_000)).toBe(true);
    const allowed = slack.fake.from(alice).message(general.id, "@turnstream prose");
    expect(await until(() => slack.fake.botTexts(general.id, { thread: allowed.ts })[0] === "hey what's up", 15_000)).toBe(true);
    expect(slack.fake.botTexts(general.id, { thread: denied.ts })).toEqual([]);
    expect(s.agentEvents().filter((line) => line.startsWith("prompt "))).toHaveLength(1);
  });
});

describe("Slack: replies", () => {
  it("a structured turn arrives as three messages in the thread, in order, paced apart; status reactions by short name", async () => {
    const { general, alice } = someConversations(slack.fake);
    await start({}, { delivery: { mode: "structured", bubble_delay_ms: 400 } });
    const said = slack.fake.from(alice).message(general.id, "@turnstream envelope");
    expect(await until(() => slack.fake.botTexts(general.id, { thread: said.ts }).length === 3, 15_000)).toBe(true);
    expect(slack.fake.botTexts(general.id, { thread: said.ts })).toEqual(BUBBLES);
    const sends = posts(said.ts).filter((call) => call.ok === true);
    expect(sends.map((call) => call.params.text)).toEqual(BUBBLES);
    // Each leaves bubble_delay_ms after the previous one left, never before its ack (exact pacing is pinned
    // in virtual time by paceBubbles' marble specs): measured at the fake, arrivals 400 ms apart less
    // what a loaded machine adds to one request's way there, and none before the previous answer.
    sends.slice(1).forEach((call, i) => {
      expect(call.at).toBeGreaterThanOrEqual(sends[i]!.answeredAt!);
      expect(call.at - sends[i]!.at).toBeGreaterThanOrEqual(300);
      expect(call.at - sends[i]!.at).toBeLessThan(5_000);
    });
    const reactions = slack.fake.callsOf("reactions.add");
    expect(reactions.length).toBeGreaterThan(0);
    expect(reactions.every((call) => call.params.channel === general.id && call.params.timestamp === said.ts)).toBe(true);
  });

  it("a text turn streams: a … placeholder updated in place, ending as the whole reply in mrkdwn", async () => {
    const { general, alice } = someConversations(slack.fake);
    await start({}, { reactions: { enabled: false } });
    const said = slack.fake.from(alice).message(general.id, "@turnstream drip 6 500");
    const whole = "word1 word2 word3 word4 word5 word6";
    expect(await until(() => slack.fake.botTexts(general.id, { thread: said.ts })[0] === whole, 20_000)).toBe(true);
    expect(posts(said.ts).map((call) => call.params.text)).toEqual(["…"]);
    expect(slack.fake.callsOf("chat.update").length).toBeGreaterThanOrEqual(2);
    expect(slack.fake.botTexts(general.id, { thread: said.ts })).toEqual([whole]);

    const bold = slack.fake.from(alice).message(general.id, "@turnstream say **done** and [docs](https://x.y/z)");
    expect(await until(() => slack.fake.botTexts(general.id, { thread: bold.ts })[0] === "*done* and <https://x.y/z|docs>", 20_000)).toBe(true);
  });

  it("with another bot in the thread, a text reply is sent once, not streamed (upstream's per-thread rule)", async () => {
    const { general, alice, helper } = someConversations(slack.fake);
    await start({}, { reactions: { enabled: false } });
    const said = slack.fake.from(alice).message(general.id, "@turnstream prose");
    expect(await until(() => slack.fake.botTexts(general.id, { thread: said.ts })[0] === "hey what's up", 15_000)).toBe(true);
    // Another bot speaks in the thread (not a turn: allow_bot_messages is off, but it is noted).
    slack.fake.from(helper).message(general.id, "I am here too", { thread_ts: said.ts });
    slack.fake.from(alice).message(general.id, "text", { thread_ts: said.ts });
    expect(await until(() => slack.fake.botTexts(general.id, { thread: said.ts })[1] === "plain text reply, one message", 15_000)).toBe(true);
    expect(posts(said.ts).map((call) => call.params.text)).toEqual(["…", "plain text reply, one message"]);
  });

  it("a rate-limited post with Retry-After 2 on the first bubble: sent again at least 2 s later, all three in order, none twice", async () => {
    const { general, alice } = someConversations(slack.fake);
    const s = await start({}, { delivery: { mode: "structured", bubble_delay_ms: 0 }, reactions: { enabled: false } });
    slack.fake.failNext("chat.postMessage", { retryAfter: 2 });
    const said = slack.fake.from(alice).message(general.id, "@turnstream envelope");
    expect(await until(() => slack.fake.botTexts(general.id, { thread: said.ts }).length === 3, 20_000)).toBe(true);
    const [refused, ...rest] = posts(said.ts);
    expect(refused).toMatchObject({ httpStatus: 429, params: { text: BUBBLES[0] } });
    expect(rest.map((call) => [call.ok, call.params.text])).toEqual(BUBBLES.map((text) => [true, text]));
    expect(rest[0]!.at - refused!.answeredAt!).toBeGreaterThanOrEqual(2_000);
    expect(slack.fake.botTexts(general.id, { thread: said.ts })).toEqual(BUBBLES);
    expect(s.records.find((r) => r.reason === "retry_later")).toMatchObject({ platform: "slack", retryAfterMs: 2_000, attempt: 1 });
  });
});
