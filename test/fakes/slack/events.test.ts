import { describe, expect, it } from "vitest";
import { FakeSlack } from "./index.js";
import { someConversations, useFakeSlack } from "./slackFixture.js";

describe("fake Slack: what users and bots do becomes the events Slack sends the app", () => {
  const slack = useFakeSlack();

  it("a channel message that mentions the bot is a `message` and a separate `app_mention`, with Slack's <@U…> in the text", () => {
    const { fake } = slack;
    const { general, alice } = someConversations(fake);
    const said = fake.from(alice).message(general.id, "@turnstream what is up?");
    const bot = fake.mention(fake.bot);
    expect(said.message.text).toBe(`${bot} what is up?`);
    expect(said.events.map((each) => each.event.type)).toEqual(["message", "app_mention"]);
    const [message, mention] = said.events.map((each) => each.event);
    expect(message).toMatchObject({ type: "message", channel: general.id, user: alice.id, text: `${bot} what is up?`, ts: said.ts, event_ts: said.ts, channel_type: "channel", client_msg_id: expect.any(String) });
    expect(message).not.toHaveProperty("subtype");
    expect(message!.blocks).toEqual([{ type: "rich_text", block_id: expect.any(String), elements: [{ type: "rich_text_section", elements: [{ type: "user", user_id: fake.bot.user.id }, { type: "text", text: " what is up?" }] }] }]);
    expect(mention).toMatchObject({ type: "app_mention", channel: general.id, user: alice.id, text: `${bot} what is up?`, ts: said.ts });
    expect(new Set(said.events.map((each) => each.event_id)).size).toBe(2);
  });

  it("a DM is a `message` with channel_type im and no app_mention; a private channel's is `group`; where the bot is not, nothing", () => {
    const { fake } = slack;
    const { dm, secret, lobby, alice } = someConversations(fake);
    const direct = fake.from(alice).message(dm.id, "@turnstream hi");
    expect(direct.events.map((each) => [each.event.type, each.event.channel_type])).toEqual([["message", "im"]]);
    expect(fake.from(alice).message(secret.id, "psst").events[0]?.event.channel_type).toBe("group");
    expect(fake.from(alice).message(lobby.id, "@turnstream are you here?").events).toEqual([]);
  });

  it("a reply carries thread_ts and parent_user_id; edits and deletes are message_changed and message_deleted", () => {
    const { fake } = slack;
    const { general, alice, bob } = someConversations(fake);
    const parent = fake.from(alice).message(general.id, "parent");
    const reply = fake.from(bob).message(general.id, "reply", { thread_ts: parent.ts });
    expect(reply.events[0]!.event).toMatchObject({ thread_ts: parent.ts, parent_user_id: alice.id });
    const edited = fake.from(bob).edit(general.id, reply.ts, "reply, edited");
    expect(edited.events[0]!.event).toMatchObject({
      type: "message",
      subtype: "message_changed",
      hidden: true,
      channel: general.id,
      message: { ts: reply.ts, text: "reply, edited", edited: { user: bob.id, ts: expect.any(String) }, thread_ts: parent.ts },
      previous_message: { ts: reply.ts, text: "reply" },
    });
    const deleted = fake.from(bob).delete(general.id, reply.ts);
    expect(deleted.events[0]!.event).toMatchObject({ subtype: "message_deleted", deleted_ts: reply.ts, previous_message: { text: "reply, edited" } });
    const bobs = fake.from(bob).message(general.id, "bob's");
    expect(() => fake.from(alice).edit(general.id, bobs.ts, "not hers")).toThrow(/not alice's/);
  });

  it("another app's bot posts with user, bot_id, app_id and bot_profile; with subtype bot_message in the legacy shape (no user)", () => {
    const { fake } = slack;
    const { general, helper } = someConversations(fake);
    const modern = fake.from(helper).message(general.id, "@turnstream your turn");
    expect(modern.events.map((each) => each.event.type)).toEqual(["message", "app_mention"]);
    expect(modern.events[0]!.event).toMatchObject({ user: helper.user.id, bot_id: helper.botId, app_id: helper.appId, bot_profile: { id: helper.botId, name: "helperbot" } });
    expect(modern.events[0]!.event).not.toHaveProperty("subtype");
    expect(modern.events[0]!.event).not.toHaveProperty("client_msg_id");
    const legacy = fake.from(helper).message(general.id, "old style", { subtype: "bot_message" });
    expect(legacy.events[0]!.event).toMatchObject({ subtype: "bot_message", bot_id: helper.botId, username: "helperbot", text: "old style" });
    expect(legacy.events[0]!.event).not.toHaveProperty("user");
  });

  it("a file share is a `message` with subtype file_share and the file's url_private_download; other subtypes pass as given", () => {
    const { fake } = slack;
    const { general, alice } = someConversations(fake);
    const shared = fake.from(alice).shareFile(general.id, { name: "voice.ogg", mimetype: "audio/ogg", bytes: new Uint8Array([1, 2, 3]), reportedSize: 0 }, { text: "listen" });
    expect(shared.events[0]!.event).toMatchObject({ type: "message", subtype: "file_share", text: "listen", upload: false, files: [{ id: shared.file.id, name: "voice.ogg", mimetype: "audio/ogg", size: 0, url_private_download: expect.stringContaining("/download/voice.ogg") }] });
    expect(fake.from(alice).message(general.id, "waves", { subtype: "me_message" }).events[0]!.event).toMatchObject({ subtype: "me_message", user: alice.id });
  });

  it("the bot's own posts, edits and deletes come back as events, as Slack sends them", async () => {
    const { fake, web } = slack;
    const { general } = someConversations(fake);
    const posted = await web.chat.postMessage({ channel: general.id, text: "mine" });
    await web.chat.update({ channel: general.id, ts: posted.ts!, text: "mine, edited" });
    await web.chat.delete({ channel: general.id, ts: posted.ts! });
    const payloads = fake.socket.pendingPayloads().map((payload) => (payload as { event: Record<string, unknown> }).event);
    expect(payloads.map((event) => [event.type, event.subtype ?? "", event.user ?? (event.message as { user?: string } | undefined)?.user ?? ""])).toEqual([
      ["message", "", fake.bot.user.id],
      ["message", "message_changed", fake.bot.user.id],
      ["message", "message_deleted", ""],
    ]);
    expect(payloads[0]).toMatchObject({ bot_id: fake.bot.botId, app_id: fake.bot.appId });
  });

  it("with echoBotMessages false, the bot's own posts raise no event", async () => {
    const fake = await FakeSlack.start({ echoBotMessages: false });
    try {
      const alice = fake.addUser({ name: "alice" });
      const channel = fake.addChannel({ name: "quiet", members: [alice] });
      await fetch(`${fake.apiUrl}chat.postMessage`, { method: "POST", headers: { authorization: `Bearer ${fake.botToken}` }, body: new URLSearchParams({ channel: channel.id, text: "silent" }) });
      expect(fake.botTexts(channel.id)).toEqual(["silent"]);
      expect(fake.socket.pendingPayloads()).toEqual([]);
    } finally {
      await fake.close();
    }
  });
});
