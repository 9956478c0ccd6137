import { describe, expect, it } from "vitest";
import { restFor } from "../../fakes/discord/fakeDiscordFixture.js";
import { BOT, someGuild, until, useDiscordPort } from "./portFixture.js";

/** The port's inbound side against the fake: upstream's filter, threads and events. */
describe("DiscordPort: messages in", () => {
  const t = useDiscordPort();

  async function ready(keys: Record<string, unknown> | ((guild: ReturnType<typeof someGuild>) => Record<string, unknown>) = {}) {
    const guild = someGuild(t.fake);
    await t.open(typeof keys === "function" ? keys(guild) : keys);
    await until(() => t.fake.gateway.liveSessions === 1 && t.port.isConnected);
    await until(() => t.fake.registeredCommands(guild.guild.id).length === 2);
    return guild;
  }

  it("a mention in a channel opens a thread named per §2.5 from the message, and the event carries it", async () => {
    const { general, alice } = await ready();
    const trigger = t.fake.from(alice).message(general.id, `<@${BOT.id}> review https://github.com/openabdev/openab/pull/785 please`);
    await until(() => t.events.length === 1);
    expect(t.fake.threads(general.id)).toEqual([{ id: trigger.id, parentId: general.id, name: "review openabdev/openab#785 please", type: 11, ownerId: BOT.id, autoArchiveDuration: 1440, starterMessageId: trigger.id }]);
    expect(t.events[0]).toEqual({
      schema: "openab.gateway.event.v1",
      event_id: `dc${trigger.id}`,
      timestamp: trigger.timestamp,
      platform: "discord",
      channel: { id: general.id, type: "thread", thread_id: trigger.id },
      sender: { id: alice.id, name: "alice", display_name: "Ally", is_bot: false },
      content: { type: "text", text: "review https://github.com/openabdev/openab/pull/785 please" },
      mentions: ["turnstream"],
      message_id: trigger.id,
      proactive: false,
    });
  });

  it("a second message in that thread, unmentioned, is the same conversation (the bot owns the thread)", async () => {
    const { general, alice } = await ready();
    const trigger = t.fake.from(alice).message(general.id, `<@${BOT.id}> first`);
    await until(() => t.events.length === 1);
    const followUp = t.fake.from(alice).message(trigger.id, "and a follow-up");
    await until(() => t.events.length === 2);
    expect(t.events[1]).toMatchObject({ channel: { id: general.id, type: "thread", thread_id: trigger.id }, content: { text: "and a follow-up" }, message_id: followUp.id });
    expect(t.fake.threads(general.id)).toHaveLength(1);
  });

  it("an unmentioned message in a channel is no turn; neither is the bot's own", async () => {
    const { general, alice } = await ready();
    t.fake.from(alice).message(general.id, "just chatting");
    t.fake.from(alice).message(general.id, `<@${BOT.id}> now`);
    await until(() => t.events.length === 1);
    expect(t.events[0]!.content.text).toBe("now");
    expect(t.logs.some((line) => line.msg === "discord message skipped" && line["reason"] === "not_in_thread")).toBe(true);
  });

  it("a user outside allowed_users who mentions the bot gets 🚫 and no turn", async () => {
    const { general, alice, bob } = await ready(({ alice: allowed }) => ({ allowed_users: [allowed.id] }));
    const denied = t.fake.from(bob).message(general.id, `<@${BOT.id}> let me in`);
    await until(() => t.fake.shown(general.id).find((message) => message.id === denied.id)?.reactions.includes("🚫") === true);
    t.fake.from(alice).message(general.id, `<@${BOT.id}> me too`);
    await until(() => t.events.length === 1);
    expect(t.events.map((event) => event.sender.id)).toEqual([alice.id]);
    expect(t.fake.threads(general.id).map((thread) => thread.starterMessageId)).not.toContain(denied.id);
    expect(t.logs.find((line) => line.msg === "discord denied user, ignoring")).toMatchObject({ reason: "denied_user", userId: bob.id });
  });

  it("a DM without allow_dm is ignored; with it, the DM is the conversation (no thread)", async () => {
    const { dm, alice } = await ready();
    t.fake.from(alice).message(dm.id, "hello in private");
    await until(() => t.logs.some((line) => line.msg === "discord message skipped" && line["reason"] === "dm_not_allowed"));
    expect(t.events).toEqual([]);
  });

  it("with allow_dm, a DM needs no mention and replies stay in it", async () => {
    const { dm, alice } = await ready({ allow_dm: true });
    t.fake.from(alice).message(dm.id, "hello in private");
    await until(() => t.events.length === 1);
    expect(t.events[0]).toMatchObject({ channel: { id: dm.id, type: "dm" }, content: { text: "hello in private" } });
    expect(t.events[0]!.channel.thread_id).toBeUndefined();
    expect(t.fake.threads()).toEqual([]);
  });

  it("a bot beyond max_bot_turns is ignored, with the warning posted once", async () => {
    const { general, alice, otherBot } = await ready({ allow_bot_messages: "all", max_bot_turns: 3 });
    const trigger = t.fake.from(alice).message(general.id, `<@${BOT.id}> start`);
    await until(() => t.events.length === 1);
    const thread = trigger.id;
    await t.port.send({ reply_to: "", platform: "discord", channel: { id: general.id, thread_id: thread }, content: { type: "text", text: "my answer" } }, { wantAck: true });
    // Bot messages in the thread: this bot's answer (1), then the other bot's (2: a turn, 3: the warning, 4: silent).
    await until(() => t.logs.some((line) => line.msg === "discord message skipped" && line["reason"] === "own_message") || t.fake.botTexts(thread).length === 1);
    for (const text of ["bot says 1", "bot says 2", "bot says 3"]) t.fake.from(otherBot).message(thread, text);
    await until(() => t.fake.botTexts(thread).length === 2);
    await until(() => t.logs.filter((line) => line.msg === "discord message skipped" && line["reason"] === "bot_turn_limit").length >= 1);
    expect(t.events.map((event) => event.content.text)).toEqual(["start", "bot says 1"]);
    expect(t.fake.botTexts(thread)).toEqual(["my answer", "⚠️ Bot turn limit reached (3/3). A human must reply in this thread to continue bot-to-bot conversation."]);
    // A human's message resets the count: the other bot is heard again.
    t.fake.from(alice).message(thread, "carry on");
    t.fake.from(otherBot).message(thread, "bot says 4");
    await until(() => t.events.length === 4);
    expect(t.events.map((event) => event.content.text).slice(2)).toEqual(["carry on", "bot says 4"]);
  });

  it("attachments come as GatewayAttachments, downloaded from their URL; audio goes as audio for [stt], a PDF as a file", async () => {
    const { general, alice } = await ready();
    t.fake.from(alice).message(general.id, `<@${BOT.id}>`, {
      attachments: [
        { filename: "notes.txt", bytes: "some notes", contentType: "text/plain; charset=utf-8" },
        { filename: "voice.ogg", bytes: "OggS-voice", contentType: "audio/ogg", voiceSeconds: 2 },
        { filename: "report.pdf", bytes: "%PDF", contentType: "application/pdf" },
      ],
    });
    await until(() => t.events.length === 1);
    const [event] = t.events;
    expect(event!.content.text).toBe("");
    expect(event!.content.attachments).toEqual([
      { type: "text_file", filename: "notes.txt", mime_type: "text/plain", data: Buffer.from("some notes").toString("base64"), size: 10 },
      { type: "audio", filename: "voice.ogg", mime_type: "audio/ogg", data: Buffer.from("OggS-voice").toString("base64"), size: 10 },
      { type: "file", filename: "report.pdf", mime_type: "application/pdf", data: Buffer.from("%PDF").toString("base64"), size: 4 },
    ]);
    expect(t.fake.threads(general.id)[0]!.name).toBe("notes.txt");
  });

  it("in a thread the bot did not open, an unmentioned message passes once the bot posted there (fetched, then cached); a failed fetch rejects", async () => {
    const { general, alice } = await ready();
    const thread = t.fake.from(alice).startThread(general.id, "alice's thread");
    t.fake.from(alice).message(thread.id, "anyone?");
    await until(() => t.logs.some((line) => line.msg === "discord message skipped" && line["reason"] === "not_involved"));
    // The bot posts there (another process of the same bot, say): the next check reads it.
    const rest = restFor(t.fake);
    await rest.post(`/channels/${thread.id}/messages`, { body: { content: "I am here" } });
    rest.clearHashSweeper();
    rest.clearHandlerSweeper();
    t.fake.from(alice).message(thread.id, "oh hi");
    await until(() => t.events.length === 1);
    expect(t.events[0]).toMatchObject({ channel: { id: general.id, thread_id: thread.id }, content: { text: "oh hi" } });
    const fetches = t.fake.callsOf("getChannelMessages").length;
    t.fake.from(alice).message(thread.id, "again");
    await until(() => t.events.length === 2);
    expect(t.fake.callsOf("getChannelMessages")).toHaveLength(fetches);
    // Another thread, the history unreadable: fail-closed.
    const other = t.fake.from(alice).startThread(general.id, "second");
    t.fake.failNext("getChannelMessages", { status: 403, code: 50001, message: "Missing Access" });
    t.fake.from(alice).message(other.id, "hello?");
    await until(() => t.logs.some((line) => line.msg === "discord participation check failed; rejecting (fail-closed)"));
    expect(t.events).toHaveLength(2);
  });

  it("allowed_channels keeps the bot to its channels (and their threads)", async () => {
    const guild = someGuild(t.fake);
    const other = t.fake.addChannel(guild.guild.id, "elsewhere");
    await t.open({ allowed_channels: [guild.general.id] });
    await until(() => t.fake.gateway.liveSessions === 1 && t.port.isConnected);
    t.fake.from(guild.alice).message(other.id, `<@${BOT.id}> here?`);
    t.fake.from(guild.alice).message(guild.general.id, `<@${BOT.id}> here!`);
    await until(() => t.events.length === 1);
    expect(t.events[0]!.channel.id).toBe(guild.general.id);
    expect(t.logs.some((line) => line.msg === "discord message skipped" && line["reason"] === "channel_not_allowed")).toBe(true);
  });

  it("without [stt], a voice message still comes (the agent gets a note) and gets 🎤, as upstream", async () => {
    const guild = someGuild(t.fake);
    await t.open({}, { speechToText: false });
    await until(() => t.fake.gateway.liveSessions === 1 && t.port.isConnected);
    const voice = t.fake.from(guild.alice).message(guild.general.id, `<@${BOT.id}>`, { attachments: [{ filename: "voice.ogg", bytes: "OggS", contentType: "audio/ogg", voiceSeconds: 1 }] });
    await until(() => t.events.length === 1);
    await until(() => t.fake.shown(guild.general.id).find((message) => message.id === voice.id)?.reactions.includes("🎤") === true);
    expect(t.events[0]!.content.attachments?.map((attachment) => attachment.type)).toEqual(["audio"]);
  });

  it("a gateway reconnect (op 7) resumes the session and messages keep coming", async () => {
    const { general, alice } = await ready();
    t.fake.gateway.reconnect();
    await until(() => t.fake.gateway.connections.length === 2 && t.fake.gateway.liveSessions === 1);
    t.fake.from(alice).message(general.id, `<@${BOT.id}> after the reconnect`);
    await until(() => t.events.length === 1);
    expect(t.fake.gateway.identifies).toBe(1);
  });
});
