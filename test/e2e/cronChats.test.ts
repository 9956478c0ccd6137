import { afterEach, describe, expect, it } from "vitest";
import { someChats, until, useFakeBotApi } from "../fakes/telegram/fakeBotApiFixture.js";
import { fastClock } from "../helpers/fastClock.js";
import { startStack, until as eventually, type Stack } from "../helpers/stack.js";
import { startTelegramStack, type TelegramStack } from "../helpers/telegramStack.js";

// Issue 40's acceptance over real sockets: a broker with [cron] posts and runs a turn each minute,
// on the fake Bot API and over the gateway protocol (the dev gateway's WebSocket), answering with
// the scripted agent. The cron clock runs 30 times faster than the wall (a minute every 2 s), so
// minutes go by without waiting for them; the exact minutes are pinned in virtual time
// (test/cron/cronScheduler.test.ts). Several processes on NATS: cronScaleOut.test.ts.

const SPEED = 30;
const fake = useFakeBotApi();
let telegram: TelegramStack | undefined;
let gateway: Stack | undefined;
afterEach(async () => {
  await telegram?.stop();
  await gateway?.stop();
  telegram = undefined;
  gateway = undefined;
});

const prompts = (events: string[]) => events.filter((line) => line.startsWith("prompt "));

describe("[cron] on Telegram (native)", () => {
  it("a * * * * * job posts 🕐 [sender]: message and runs a turn each minute, answered in the chat", async () => {
    const { dm } = someChats(fake.api);
    const job = { schedule: "* * * * *", platform: "telegram", channel: String(dm.id), message: "say good morning", sender_name: "daily" };
    telegram = await startTelegramStack(fake.api, { config: { cron: { jobs: [job] } }, cronScheduler: fastClock(SPEED) });
    await until(() => fake.api.botTexts(dm.id).filter((text) => text === "good morning").length >= 2, 30_000);
    // Sent as written; Telegram's legacy Markdown (every reply's, upstream's rule) reads "[daily]" as link text.
    expect(fake.api.callsOf("sendMessage")[0]?.params).toMatchObject({ chat_id: dm.id, text: "🕐 [daily]: say good morning" });
    expect(fake.api.botTexts(dm.id).slice(0, 4)).toEqual(["🕐 daily: say good morning", "good morning", "🕐 daily: say good morning", "good morning"]);
    // Telegram has no thread for a post: no forum topic is opened.
    expect(fake.api.callsOf("createForumTopic")).toEqual([]);
    // The turn's prompt is the job's message, from openab-cron, a bot.
    const prompt = telegram.prompts()[0]?.join("\n") ?? "";
    expect(prompt).toContain("say good morning");
    expect(prompt).toContain('"sender_id":"openab-cron"');
    expect(telegram.records.filter((record) => record.msg === "🔔 cronjob fired").length).toBeGreaterThanOrEqual(2);
  });

  it("a proactive job whose agent has nothing to report posts nothing at all, streaming on (no placeholder, no typing)", async () => {
    const { dm } = someChats(fake.api);
    const job = { schedule: "* * * * *", platform: "telegram", channel: String(dm.id), message: "say NOTHING_TO_REPORT", proactive: true };
    telegram = await startTelegramStack(fake.api, { telegram: { streaming: true }, config: { cron: { jobs: [job] } }, cronScheduler: fastClock(SPEED) });
    await until(() => prompts(telegram!.agentEvents()).length >= 2, 30_000);
    // The second turn has ended too: the first firing was long done by then.
    await until(() => telegram!.records.filter((record) => record.msg === "turn complete").length >= 2, 10_000);
    expect(fake.api.botTexts(dm.id)).toEqual([]);
    expect(fake.api.calls.filter((call) => call.params.chat_id === dm.id || call.params.chat_id === String(dm.id))).toEqual([]);
  });

  it.each(["structured", "sequential"] as const)("%s mode: a proactive job whose agent writes prose and never calls the reply tool posts nothing", async (mode) => {
    const { dm } = someChats(fake.api);
    const job = { schedule: "* * * * *", platform: "telegram", channel: String(dm.id), message: "prose", proactive: true };
    telegram = await startTelegramStack(fake.api, { config: { delivery: { mode }, cron: { jobs: [job] } }, cronScheduler: fastClock(SPEED) });
    await until(() => telegram!.records.filter((record) => record.msg === "proactive turn did not call the reply tool; nothing delivered").length >= 1, 30_000);
    expect(fake.api.botTexts(dm.id)).toEqual([]);
  });

  it("a proactive job under [triage] daily_cap = 1: the second firing that day costs no agent call", async () => {
    const { dm } = someChats(fake.api);
    const job = { schedule: "* * * * *", platform: "telegram", channel: String(dm.id), message: "say fresh news", proactive: true };
    telegram = await startTelegramStack(fake.api, {
      config: { cron: { jobs: [job] }, triage: { enabled: true, daily_cap: 1, cooldown_secs: 0 } },
      cronScheduler: fastClock(SPEED),
    });
    await until(() => telegram!.records.filter((record) => record.msg === "🔔 cronjob fired").length >= 3, 30_000);
    await until(() => telegram!.records.filter((record) => record.msg === "turn complete").length >= 3, 10_000);
    expect(prompts(telegram.agentEvents())).toHaveLength(1);
    expect(fake.api.botTexts(dm.id)).toEqual(["fresh news"]);
  });
});

describe("[cron] over the gateway protocol", () => {
  /** A gateway answers create_topic with the topic it opened. */
  const topics = (frame: { command?: string }) => (frame.command === "create_topic" ? { message_id: null, thread_id: "topic-1" } : {});

  it("legacy (no hello): posts with reply_to \"\", opens a topic (always asked, as the protocol has it) and answers in it", async () => {
    gateway = await startStack({
      config: { cron: { jobs: [{ schedule: "* * * * *", platform: "line", channel: "group-7", message: "say status ok" }] } },
      cronScheduler: fastClock(SPEED),
      gateway: { ack: topics },
    });
    expect(await eventually(() => gateway!.replies.filter((reply) => reply.content.text === "status ok").length >= 2, 30_000)).toBe(true);
    const [post, answer] = gateway.replies;
    expect(post).toMatchObject({ reply_to: "", platform: "line", channel: { id: "group-7" }, content: { text: "🕐 [openab-cron]: say status ok" } });
    expect(post?.channel.thread_id).toBeUndefined();
    expect(answer).toMatchObject({ reply_to: "", platform: "line", channel: { id: "group-7", thread_id: "topic-1" }, content: { text: "status ok" } });
    const topic = gateway.commands.find((command) => command.command === "create_topic");
    expect(topic).toMatchObject({ channel: { id: "group-7" }, content: { text: "say status ok" } });
    expect(topic?.request_id).toEqual(expect.any(String));
    // The post's id is not known without acks: nothing is anchored on it.
    expect(topic?.quote_message_id).toBeUndefined();
  });

  it("with acks (send_ack): the topic is opened from the post, and the turn's reactions go on the post", async () => {
    gateway = await startStack({
      config: { cron: { jobs: [{ schedule: "* * * * *", platform: "line", channel: "group-7", message: "say status ok" }] } },
      cronScheduler: fastClock(SPEED),
      gateway: { ack: topics, hello: { capabilities: { line: { send_ack: true, supports_reactions: true } } } },
    });
    expect(await eventually(() => gateway!.replies.some((reply) => reply.content.text === "status ok"), 30_000)).toBe(true);
    const topic = gateway.commands.find((command) => command.command === "create_topic");
    expect(topic?.quote_message_id).toMatch(/^gw-/);
    expect(await eventually(() => gateway!.commands.some((command) => command.command === "add_reaction"), 10_000)).toBe(true);
    expect(gateway.commands.filter((command) => command.command === "add_reaction").every((command) => command.reply_to === topic?.quote_message_id)).toBe(true);
  });
});
