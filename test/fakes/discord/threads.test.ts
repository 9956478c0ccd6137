import { describe, expect, it } from "vitest";
import { API, ChannelType, ThreadAutoArchiveDuration } from "@discordjs/core";
import { refusal, someGuild, useFakeDiscord } from "./fakeDiscordFixture.js";

describe("fake Discord: threads started from a message", () => {
  const discord = useFakeDiscord();
  const api = () => new API(discord.rest);

  it("starts a public thread whose id is the message's, with its name and archive duration, and posts into it", async () => {
    const { general, alice } = someGuild(discord.fake);
    const trigger = discord.fake.from(alice).message(general.id, "<@1311111111111111111> how do I deploy?");
    const thread = await api().channels.createThread(general.id, { name: "how do I deploy?", auto_archive_duration: ThreadAutoArchiveDuration.OneDay }, trigger.id);
    expect(thread).toMatchObject({ id: trigger.id, type: ChannelType.PublicThread, parent_id: general.id, name: "how do I deploy?", owner_id: discord.fake.bot.id, thread_metadata: { archived: false, auto_archive_duration: 1440, locked: false } });
    await api().channels.createMessage(thread.id, { content: "Here is how." });
    expect(discord.fake.threads(general.id)).toEqual([{ id: trigger.id, parentId: general.id, name: "how do I deploy?", type: 11, ownerId: discord.fake.bot.id, autoArchiveDuration: 1440, starterMessageId: trigger.id }]);
    expect(discord.fake.botTexts(thread.id)).toEqual(["Here is how."]);
    expect(discord.fake.shown(general.id)[0]!.threadId).toBe(thread.id);
    expect((await api().channels.getMessage(general.id, trigger.id)).thread).toMatchObject({ id: thread.id });
  });

  it("refuses a second thread from the same message with 160004, as a sibling bot meets it", async () => {
    const { general, alice } = someGuild(discord.fake);
    const trigger = discord.fake.from(alice).message(general.id, "both bots answer this");
    await api().channels.createThread(general.id, { name: "first" }, trigger.id);
    const error = await refusal(api().channels.createThread(general.id, { name: "second" }, trigger.id));
    expect(error).toMatchObject({ status: 400, code: 160004, message: "A thread has already been created for this message." });
  });

  it("checks name (1–100 characters, required) and auto_archive_duration (60, 1440, 4320, 10080) in Discord's words", async () => {
    const { general, alice } = someGuild(discord.fake);
    const trigger = discord.fake.from(alice).message(general.id, "x");
    const empty = await refusal(api().channels.createThread(general.id, { name: "" }, trigger.id));
    expect(empty.rawError).toEqual({ code: 50035, message: "Invalid Form Body", errors: { name: { _errors: [{ code: "BASE_TYPE_BAD_LENGTH", message: "Must be between 1 and 100 in length." }] } } });
    expect((await refusal(api().channels.createThread(general.id, { name: "n".repeat(101) }, trigger.id))).code).toBe(50035);
    const noName = await refusal(discord.rest.post(`/channels/${general.id}/messages/${trigger.id}/threads`, { body: {} }));
    expect(noName.rawError).toMatchObject({ errors: { name: { _errors: [{ code: "BASE_TYPE_REQUIRED", message: "This field is required" }] } } });
    const duration = await refusal(api().channels.createThread(general.id, { name: "ok", auto_archive_duration: 120 as ThreadAutoArchiveDuration }, trigger.id));
    expect(duration.rawError).toMatchObject({ errors: { auto_archive_duration: { _errors: [{ code: "BASE_TYPE_CHOICES", message: "Value must be one of (60, 1440, 4320, 10080)." }] } } });
    const hundred = await api().channels.createThread(general.id, { name: "n".repeat(100) }, trigger.id);
    expect(hundred.name).toHaveLength(100);
  });

  it("refuses a thread in a thread or a DM (50024), without CREATE_PUBLIC_THREADS (50013), from an unknown message (10008)", async () => {
    const { general, readOnly, dm, alice } = someGuild(discord.fake);
    const trigger = discord.fake.from(alice).message(general.id, "start");
    const thread = await api().channels.createThread(general.id, { name: "t" }, trigger.id);
    const inThread = discord.fake.from(alice).message(thread.id, "nested?");
    expect(await refusal(api().channels.createThread(thread.id, { name: "nested" }, inThread.id))).toMatchObject({ status: 400, code: 50024, message: "Cannot execute action on this channel type" });
    const inDm = discord.fake.from(alice).message(dm.id, "dm");
    expect((await refusal(api().channels.createThread(dm.id, { name: "dm thread" }, inDm.id))).code).toBe(50024);
    const announcement = discord.fake.from(alice).message(readOnly.id, "news");
    expect(await refusal(api().channels.createThread(readOnly.id, { name: "no" }, announcement.id))).toMatchObject({ status: 403, code: 50013 });
    expect((await refusal(api().channels.createThread(general.id, { name: "ghost" }, "1000000000000000001"))).code).toBe(10008);
  });

  it("follows the parent's permissions in a thread: SEND_MESSAGES_IN_THREADS", async () => {
    const { general, alice } = someGuild(discord.fake);
    const trigger = discord.fake.from(alice).message(general.id, "start");
    const thread = await api().channels.createThread(general.id, { name: "t" }, trigger.id);
    discord.fake.restrict(general.id, { sendInThreads: false });
    expect((await refusal(api().channels.createMessage(thread.id, { content: "hi" }))).code).toBe(50013);
    await api().channels.createMessage(general.id, { content: "still fine in the channel" });
  });
});
