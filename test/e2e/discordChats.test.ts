import { afterEach, describe, expect, it } from "vitest";
import { someGuild, TOKEN, useFakeDiscord } from "../fakes/discord/fakeDiscordFixture.js";
import type { RecordedCall } from "../fakes/discord/index.js";
import { startPlatformStack, type PlatformStack } from "../helpers/platformStack.js";
import { until } from "../helpers/stack.js";
import type { ConfigInput } from "../../src/config/index.js";

// Issue 39's acceptance for Discord, end to end: a broker whose only platform is [discord], over
// the fake Discord (gateway v10 and REST v10 on 127.0.0.1), answering with the scripted agent.
// The filter order, mentions, bot turns and replies are pinned in test/platforms/discord/; here,
// what a person in the channel sees of a whole turn. Exact pacing is pinned in virtual time
// (paceBubbles' marble specs); here the gaps are real and the bounds generous.

const t = useFakeDiscord();
let stack: PlatformStack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

/** The scripted agent's `envelope`: three bubbles. */
const BUBBLES = ["on it", "your flight moved to 8pm", "gate B12"];

async function start(discord: Partial<NonNullable<ConfigInput["discord"]>> = {}, config: Omit<ConfigInput, "gateway" | "discord"> = {}): Promise<PlatformStack> {
  stack = await startPlatformStack({
    config: { ...config, discord: { bot_token: TOKEN, api_root: t.fake.api, ...discord } },
    ready: (records) => records.some((r) => r.msg === "discord bot connected"),
  });
  return stack;
}

const mention = (text: string) => `<@${t.fake.bot.id}> ${text}`;
const accepted = (calls: readonly RecordedCall[]) => calls.filter((call) => call.status !== undefined && call.status < 300);

describe("Discord: conversations", () => {
  it("a mention in a channel opens a thread named per §2.5 with the reply in it; a second message there is the same session", async () => {
    const { general, alice } = someGuild(t.fake);
    const s = await start({}, { delivery: { mode: "text" }, reactions: { enabled: false } });
    const trigger = t.fake.from(alice).message(general.id, mention("prose"));
    // Text mode streams on Discord (as upstream): a … placeholder, edited into the reply.
    expect(await until(() => t.fake.botTexts(trigger.id)[0] === "hey what's up", 15_000)).toBe(true);
    expect(t.fake.threads(general.id)).toMatchObject([{ id: trigger.id, name: "prose", autoArchiveDuration: 1440, starterMessageId: trigger.id }]);
    expect(t.fake.botTexts(trigger.id)).toEqual(["hey what's up"]);
    // Nothing in the channel itself: the answer is in the thread.
    expect(t.fake.botTexts(general.id)).toEqual([]);

    t.fake.from(alice).message(trigger.id, "text");
    expect(await until(() => t.fake.botTexts(trigger.id)[1] === "plain text reply, one message", 15_000)).toBe(true);
    expect(t.fake.botTexts(trigger.id)).toEqual(["hey what's up", "plain text reply, one message"]);
    // One ACP session for the thread: created once, prompted twice.
    expect(s.agentEvents().filter((line) => line.startsWith("new "))).toHaveLength(1);
    expect(s.agentEvents().filter((line) => line.startsWith("prompt "))).toHaveLength(2);
    expect(t.fake.threads(general.id)).toHaveLength(1);
  });

  it("a user outside allowed_users gets 🚫 and no turn; an allowed one is answered", async () => {
    const { general, alice, bob } = someGuild(t.fake);
    const s = await start({ allowed_users: [alice.id] }, { reactions: { enabled: false } });
    const denied = t.fake.from(bob).message(general.id, mention("prose"));
    expect(await until(() => t.fake.shown(general.id).find((m) => m.id === denied.id)?.reactions.includes("🚫") === true, 15_000)).toBe(true);
    const allowed = t.fake.from(alice).message(general.id, mention("prose"));
    expect(await until(() => t.fake.botTexts(allowed.id)[0] === "hey what's up", 15_000)).toBe(true);
    expect(t.fake.threads(general.id).map((thread) => thread.starterMessageId)).toEqual([allowed.id]);
    expect(s.agentEvents().filter((line) => line.startsWith("prompt "))).toHaveLength(1);
  });
});

describe("Discord: replies", () => {
  it("a structured turn arrives as three messages in the thread, in order, paced apart; status reactions on the trigger", async () => {
    const { general, alice } = someGuild(t.fake);
    await start({}, { delivery: { mode: "structured", bubble_delay_ms: 400 } });
    const trigger = t.fake.from(alice).message(general.id, mention("envelope"));
    expect(await until(() => t.fake.botTexts(trigger.id).length === 3, 15_000)).toBe(true);
    expect(t.fake.botTexts(trigger.id)).toEqual(BUBBLES);
    const sends = accepted(t.fake.callsOf("createMessage")).filter((call) => call.params["channel.id"] === trigger.id);
    expect(sends.map((call) => (call.body as { content: string }).content)).toEqual(BUBBLES);
    // Each leaves bubble_delay_ms after the previous one left, never before its ack (exact pacing is pinned
    // in virtual time by paceBubbles' marble specs): measured at the fake, arrivals 400 ms apart less
    // what a loaded machine adds to one request's way there, and none before the previous answer.
    sends.slice(1).forEach((call, i) => {
      expect(call.at).toBeGreaterThanOrEqual(sends[i]!.answeredAt!);
      expect(call.at - sends[i]!.at).toBeGreaterThanOrEqual(300);
      expect(call.at - sends[i]!.at).toBeLessThan(5_000);
    });
    // The status reactions go on the message that started the thread, in the parent channel.
    expect(accepted(t.fake.callsOf("createReaction")).every((call) => call.params["channel.id"] === general.id && call.params["message.id"] === trigger.id)).toBe(true);
    expect(t.fake.callsOf("createReaction").length).toBeGreaterThan(0);
  });

  it("a text turn streams: a … placeholder edited in place as the reply is written, ending as the whole reply", async () => {
    const { general, alice } = someGuild(t.fake);
    await start({}, { delivery: { mode: "text" }, reactions: { enabled: false } });
    const trigger = t.fake.from(alice).message(general.id, mention("drip 6 500"));
    const whole = "word1 word2 word3 word4 word5 word6";
    expect(await until(() => t.fake.botTexts(trigger.id)[0] === whole, 20_000)).toBe(true);
    const [shown] = t.fake.shown(trigger.id).filter((m) => m.fromBot);
    expect(shown!.earlierContents[0]).toBe("…");
    expect(shown!.edits).toBeGreaterThanOrEqual(2);
    expect(t.fake.botTexts(trigger.id)).toEqual([whole]);
  });

  it("with another bot in the thread, a text reply is sent once, not streamed (upstream's per-thread rule)", async () => {
    const { general, alice, otherBot } = someGuild(t.fake);
    await start({}, { delivery: { mode: "text" }, reactions: { enabled: false } });
    const trigger = t.fake.from(alice).message(general.id, mention("prose"));
    expect(await until(() => t.fake.botTexts(trigger.id)[0] === "hey what's up", 15_000)).toBe(true);
    // Another bot speaks in the thread (not a turn: allow_bot_messages is off, but it is noted).
    t.fake.from(otherBot).message(trigger.id, "I am here too");
    t.fake.from(alice).message(trigger.id, "text");
    expect(await until(() => t.fake.botTexts(trigger.id)[1] === "plain text reply, one message", 15_000)).toBe(true);
    const [first, second] = t.fake.shown(trigger.id).filter((m) => m.fromBot);
    expect(first!.earlierContents).toEqual(["…"]);
    expect(second!.earlierContents).toEqual([]);
    expect(second!.edits).toBe(0);
  });

  it("a 429 with retry_after 2 on the first bubble: it is sent again at least 2 s later, and all three arrive in order, none twice", async () => {
    const { general, alice } = someGuild(t.fake);
    const s = await start({}, { delivery: { mode: "structured", bubble_delay_ms: 0 }, reactions: { enabled: false } });
    t.fake.failNext("createMessage", { status: 429, retryAfter: 2 });
    const trigger = t.fake.from(alice).message(general.id, mention("envelope"));
    expect(await until(() => t.fake.botTexts(trigger.id).length === 3, 20_000)).toBe(true);
    const [refused, ...rest] = t.fake.callsOf("createMessage").filter((call) => call.params["channel.id"] === trigger.id);
    expect(refused).toMatchObject({ status: 429, body: { content: BUBBLES[0] } });
    expect(rest.map((call) => [call.status, (call.body as { content: string }).content])).toEqual(BUBBLES.map((text) => [200, text]));
    expect(rest[0]!.at - refused!.answeredAt!).toBeGreaterThanOrEqual(2_000);
    expect(t.fake.botTexts(trigger.id)).toEqual(BUBBLES);
    expect(s.records.find((r) => r.reason === "retry_later")).toMatchObject({ platform: "discord", retryAfterMs: 2_000, attempt: 1 });
  });
});
