import { afterEach, describe, expect, it } from "vitest";
import { someGuild, TOKEN, useFakeDiscord } from "../fakes/discord/fakeDiscordFixture.js";
import { someConversations, useFakeSlack } from "../fakes/slack/slackFixture.js";
import { fastClock } from "../helpers/fastClock.js";
import { startPlatformStack, type PlatformStack } from "../helpers/platformStack.js";
import { until } from "../helpers/stack.js";

// Issue 40 on Discord and Slack, end to end over their fakes: a cron job's firing posts 🕐 in the
// channel, opens a thread from that post as upstream's fire_cronjob does, and answers there; a
// person replying in that thread continues the job's conversation. The cron clock runs 30 times the
// wall's. Telegram and the gateway protocol: cronChats.test.ts.

const SPEED = 30;
let stack: PlatformStack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

const sessions = (s: PlatformStack) => s.agentEvents().filter((line) => line.startsWith("new "));

describe("[cron] on Discord", () => {
  const t = useFakeDiscord();

  it("posts 🕐 in the channel, opens a thread from the post and answers in it; a reply there is the same session", async () => {
    const { general, alice } = someGuild(t.fake);
    // A job that fires once: at a minute of the clock's some 5 s (real) ahead, after the broker is up.
    const clock = fastClock(SPEED);
    const first = new Date(Math.ceil((clock.now() + 150_000) / 60_000) * 60_000);
    const schedule = `${first.getUTCMinutes()} ${first.getUTCHours()} * * *`;
    stack = await startPlatformStack({
      config: {
        discord: { bot_token: TOKEN, api_root: t.fake.api, allow_all_users: true },
        reactions: { enabled: false },
        cron: { jobs: [{ schedule, platform: "discord", channel: general.id, message: "say morning report" }] },
      },
      cronScheduler: clock,
      ready: (records) => records.some((r) => r.msg === "discord bot connected"),
    });
    expect(await until(() => t.fake.threads(general.id).length >= 1, 15_000)).toBe(true);
    const [thread] = t.fake.threads(general.id);
    expect(thread).toMatchObject({ name: "say morning report", autoArchiveDuration: 1440 });
    // The thread starts from the post, which is in the channel.
    const post = t.fake.shown(general.id).find((message) => message.id === thread?.starterMessageId);
    expect(post?.content).toBe("🕐 [openab-cron]: say morning report");
    expect(await until(() => t.fake.botTexts(thread!.id).includes("morning report"), 15_000)).toBe(true);
    // Alice answers in the thread: the job's conversation goes on, in the session the firing opened.
    t.fake.from(alice).message(thread!.id, "say tell me more");
    expect(await until(() => t.fake.botTexts(thread!.id).includes("tell me more"), 15_000)).toBe(true);
    expect(t.fake.botTexts(thread!.id)).toEqual(["morning report", "tell me more"]);
    expect(sessions(stack)).toHaveLength(1);
    expect(t.fake.threads(general.id)).toHaveLength(1);
  });
});

describe("[cron] on Slack", () => {
  const slack = useFakeSlack();

  it("posts 🕐 at the channel's top level and answers in the thread under it", async () => {
    const { general } = someConversations(slack.fake);
    stack = await startPlatformStack({
      config: {
        slack: { bot_token: slack.fake.botToken, app_token: slack.fake.appToken, api_root: slack.fake.apiUrl, allow_all_users: true },
        reactions: { enabled: false },
        cron: { jobs: [{ schedule: "* * * * *", platform: "slack", channel: general.id, message: "say standup time" }] },
      },
      cronScheduler: fastClock(SPEED),
      ready: (records) => records.some((r) => r.msg === "slack socket connected"),
    });
    const topLevel = () => slack.fake.shown(general.id).filter((message) => message.from_bot && message.text === "🕐 [openab-cron]: say standup time");
    expect(await until(() => topLevel().length >= 1, 15_000)).toBe(true);
    const post = topLevel()[0]!;
    expect(await until(() => slack.fake.botTexts(general.id, { thread: post.ts }).includes("standup time"), 15_000)).toBe(true);
    expect(sessions(stack).length).toBeGreaterThanOrEqual(1);
  });
});
