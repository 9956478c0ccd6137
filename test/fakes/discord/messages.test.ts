import { describe, expect, it } from "vitest";
import { AllowedMentionsTypes, API, MessageFlags, Routes } from "@discordjs/core";
import { refusal, someGuild, useFakeDiscord } from "./fakeDiscordFixture.js";

describe("fake Discord: messages", () => {
  const discord = useFakeDiscord();
  const api = () => new API(discord.rest);

  it("posts a message up to 2000 characters (code points) and refuses 2001 with 50035 BASE_TYPE_MAX_LENGTH", async () => {
    const { general } = someGuild(discord.fake);
    const long = "😀".repeat(2000);
    const sent = await api().channels.createMessage(general.id, { content: long });
    expect(sent).toMatchObject({ channel_id: general.id, content: long, type: 0, author: { bot: true }, edited_timestamp: null });
    expect(sent.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
    const error = await refusal(api().channels.createMessage(general.id, { content: "x".repeat(2001) }));
    expect(error.rawError).toEqual({ code: 50035, message: "Invalid Form Body", errors: { content: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH", message: "Must be 2000 or fewer in length." }] } } });
    expect(discord.fake.botTexts(general.id)).toEqual([long]);
  });

  it("refuses a message with nothing in it (50006) but takes embeds or a file alone", async () => {
    const { general } = someGuild(discord.fake);
    expect(await refusal(api().channels.createMessage(general.id, {}))).toMatchObject({ status: 400, code: 50006, message: "Cannot send an empty message" });
    expect(await refusal(api().channels.createMessage(general.id, { content: "" }))).toMatchObject({ code: 50006 });
    await api().channels.createMessage(general.id, { embeds: [{ title: "Only an embed" }] });
    const withFile = await api().channels.createMessage(general.id, { files: [{ name: "notes.txt", data: Buffer.from("hello file"), contentType: "text/plain" }] });
    expect(withFile.attachments).toMatchObject([{ filename: "notes.txt", size: 10, content_type: "text/plain" }]);
    const download = await fetch(withFile.attachments[0]!.url);
    expect([download.status, await download.text()]).toEqual([200, "hello file"]);
  });

  it("replies with message_reference; an unknown one is 50035 MESSAGE_REFERENCE_UNKNOWN_MESSAGE unless fail_if_not_exists is false", async () => {
    const { general, alice } = someGuild(discord.fake);
    const question = discord.fake.from(alice).message(general.id, "question?");
    const reply = await api().channels.createMessage(general.id, { content: "answer", message_reference: { message_id: question.id } });
    expect(reply).toMatchObject({ type: 19, message_reference: { message_id: question.id, channel_id: general.id }, referenced_message: { id: question.id, content: "question?" } });
    // A bot's reply does not ping the replied-to author unless allowed_mentions.replied_user says so.
    expect(reply.mentions).toEqual([]);
    const pinging = await api().channels.createMessage(general.id, { content: "ping", message_reference: { message_id: question.id }, allowed_mentions: { replied_user: true } });
    expect(pinging.mentions.map((user) => user.id)).toEqual([alice.id]);
    const missing = "1000000000000000001";
    const error = await refusal(api().channels.createMessage(general.id, { content: "to nothing", message_reference: { message_id: missing } }));
    expect(error.rawError).toMatchObject({ code: 50035, errors: { message_reference: { _errors: [{ code: "MESSAGE_REFERENCE_UNKNOWN_MESSAGE", message: "Unknown message" }] } } });
    const plain = await api().channels.createMessage(general.id, { content: "plain", message_reference: { message_id: missing, fail_if_not_exists: false } });
    expect(plain.type).toBe(0);
    expect(plain.message_reference).toBeUndefined();
  });

  it("parses mentions as allowed_mentions allows, and refuses parse together with a users list", async () => {
    const { general, alice, bob, helpers } = someGuild(discord.fake);
    const content = `@everyone <@${alice.id}> <@!${bob.id}> <@&${helpers.id}>`;
    const all = await api().channels.createMessage(general.id, { content });
    expect([all.mentions.map((user) => user.id), all.mention_roles, all.mention_everyone]).toEqual([[alice.id, bob.id], [helpers.id], true]);
    const none = await api().channels.createMessage(general.id, { content, allowed_mentions: { parse: [] } });
    expect([none.mentions, none.mention_roles, none.mention_everyone]).toEqual([[], [], false]);
    const onlyBob = await api().channels.createMessage(general.id, { content, allowed_mentions: { users: [bob.id] } });
    expect(onlyBob.mentions.map((user) => user.id)).toEqual([bob.id]);
    const error = await refusal(api().channels.createMessage(general.id, { content, allowed_mentions: { parse: [AllowedMentionsTypes.User], users: [bob.id] } }));
    expect(error.rawError).toMatchObject({ code: 50035, errors: { allowed_mentions: { _errors: [{ code: "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE" }] } } });
    const badParse = await refusal(discord.rest.post(Routes.channelMessages(general.id), { body: { content, allowed_mentions: { parse: ["channels"] } } }));
    expect(badParse.rawError).toMatchObject({ errors: { allowed_mentions: { parse: { "0": { _errors: [{ code: "BASE_TYPE_CHOICES", message: "Value must be one of ('roles', 'users', 'everyone')." }] } } } } });
  });

  it("edits only the bot's own messages (50005 otherwise); content is re-checked, null with nothing else left is 50006", async () => {
    const { general, alice } = someGuild(discord.fake);
    const sent = await api().channels.createMessage(general.id, { content: "…" });
    const edited = await api().channels.editMessage(general.id, sent.id, { content: "v2" });
    expect(edited.content).toBe("v2");
    expect(edited.edited_timestamp).not.toBeNull();
    await api().channels.editMessage(general.id, sent.id, { content: "v3" });
    expect(discord.fake.shown(general.id)).toMatchObject([{ content: "v3", earlierContents: ["…", "v2"], edits: 2 }]);
    expect((await refusal(api().channels.editMessage(general.id, sent.id, { content: "y".repeat(2001) }))).code).toBe(50035);
    expect(await refusal(api().channels.editMessage(general.id, sent.id, { content: null }))).toMatchObject({ code: 50006 });
    const theirs = discord.fake.from(alice).message(general.id, "mine");
    expect(await refusal(api().channels.editMessage(general.id, theirs.id, { content: "hijacked" }))).toMatchObject({ status: 403, code: 50005, message: "Cannot edit a message authored by another user" });
    expect(await refusal(api().channels.editMessage(general.id, "1000000000000000001", { content: "x" }))).toMatchObject({ status: 404, code: 10008, message: "Unknown Message" });
  });

  it("deletes the bot's messages, and others' with MANAGE_MESSAGES only", async () => {
    const { general, alice } = someGuild(discord.fake);
    const sent = await api().channels.createMessage(general.id, { content: "gone soon" });
    await api().channels.deleteMessage(general.id, sent.id);
    expect(discord.fake.botTexts(general.id)).toEqual([]);
    expect(await refusal(api().channels.deleteMessage(general.id, sent.id))).toMatchObject({ code: 10008 });
    const theirs = discord.fake.from(alice).message(general.id, "spam");
    discord.fake.restrict(general.id, { manageMessages: false });
    expect(await refusal(api().channels.deleteMessage(general.id, theirs.id))).toMatchObject({ status: 403, code: 50013, message: "Missing Permissions" });
  });

  it("answers history newest first, limit 1–100 (101 is refused), before/after paging; empty without READ_MESSAGE_HISTORY", async () => {
    const { general, alice } = someGuild(discord.fake);
    const ids = ["m1", "m2", "m3", "m4"].map((text) => discord.fake.from(alice).message(general.id, text).id);
    expect((await api().channels.getMessages(general.id)).map((message) => message.content)).toEqual(["m4", "m3", "m2", "m1"]);
    expect((await api().channels.getMessages(general.id, { limit: 2 })).map((message) => message.content)).toEqual(["m4", "m3"]);
    expect((await api().channels.getMessages(general.id, { before: ids[2]! })).map((message) => message.content)).toEqual(["m2", "m1"]);
    expect((await api().channels.getMessages(general.id, { after: ids[0]!, limit: 2 })).map((message) => message.content)).toEqual(["m3", "m2"]);
    const error = await refusal(api().channels.getMessages(general.id, { limit: 200 }));
    expect(error.rawError).toMatchObject({ code: 50035, errors: { limit: { _errors: [{ code: "NUMBER_TYPE_MAX", message: "int value should be less than or equal to 100." }] } } });
    expect((await api().channels.getMessage(general.id, ids[1]!)).content).toBe("m2");
    discord.fake.restrict(general.id, { readHistory: false });
    expect(await api().channels.getMessages(general.id)).toEqual([]);
  });

  it("refuses a channel the bot cannot see (50001) and a send where it may only read (50013)", async () => {
    const { guild, readOnly } = someGuild(discord.fake);
    const hidden = discord.fake.addChannel(guild.id, "staff", { permissions: { view: false } });
    expect(await refusal(api().channels.get(hidden.id))).toMatchObject({ status: 403, code: 50001, message: "Missing Access" });
    expect(await refusal(api().channels.createMessage(hidden.id, { content: "hi" }))).toMatchObject({ code: 50001 });
    expect(await refusal(api().channels.createMessage(readOnly.id, { content: "hi" }))).toMatchObject({ status: 403, code: 50013 });
    expect(await refusal(api().channels.showTyping(readOnly.id))).toMatchObject({ code: 50013 });
  });

  it("posts and shows typing in DMs; a DM message is type 1's channel, without guild_id", async () => {
    const { dm, alice } = someGuild(discord.fake);
    await api().channels.showTyping(dm.id);
    const sent = await api().channels.createMessage(dm.id, { content: "hello Alice" });
    expect(sent.channel_id).toBe(dm.id);
    expect(await api().channels.get(dm.id)).toMatchObject({ type: 1, recipients: [{ id: alice.id }] });
    expect(await api().users.createDM(alice.id)).toMatchObject({ id: dm.id });
    expect(discord.fake.callsOf("triggerTypingIndicator")).toHaveLength(1);
  });

  it("keeps only the flags a sender may set, and the suppress-embeds flag on edit", async () => {
    const { general } = someGuild(discord.fake);
    const sent = await api().channels.createMessage(general.id, { content: "quiet", flags: MessageFlags.SuppressNotifications | MessageFlags.Ephemeral });
    expect(sent.flags).toBe(MessageFlags.SuppressNotifications);
    const edited = await api().channels.editMessage(general.id, sent.id, { flags: MessageFlags.SuppressEmbeds });
    expect(edited.flags).toBe(MessageFlags.SuppressEmbeds);
  });

  it("reads invalid JSON as 50109 and a body of another Content-Type as 50035", async () => {
    const { general } = someGuild(discord.fake);
    const url = `${discord.fake.api}/v10/channels/${general.id}/messages`;
    const headers = { authorization: `Bot ${(await import("./fakeDiscordFixture.js")).TOKEN}` };
    const broken = await fetch(url, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: "{content:" });
    expect([broken.status, await broken.json()]).toEqual([400, { message: "The request body contains invalid JSON.", code: 50109 }]);
    const text = await fetch(url, { method: "POST", headers: { ...headers, "content-type": "text/plain" }, body: "hello" });
    expect(text.status).toBe(400);
    expect(((await text.json()) as { code: number }).code).toBe(50035);
  });
});
