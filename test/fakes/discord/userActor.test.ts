import { describe, expect, it } from "vitest";
import { API, GatewayDispatchEvents } from "@discordjs/core";
import { BOT, connectBot, someGuild, until, useFakeDiscord } from "./fakeDiscordFixture.js";

describe("fake Discord: what users do", () => {
  const discord = useFakeDiscord({ identifyIntervalMs: 0 });

  it("a reply pings its author by default (Discord's client does), so replying to the bot mentions it", async () => {
    const { general, alice } = someGuild(discord.fake);
    const answer = await new API(discord.rest).channels.createMessage(general.id, { content: "an answer" });
    const pinging = discord.fake.from(alice).message(general.id, "thanks!", { replyTo: answer.id });
    expect(pinging).toMatchObject({ type: 19, mentions: [{ id: BOT.id }], referenced_message: { id: answer.id, content: "an answer" } });
    const quiet = discord.fake.from(alice).message(general.id, "no ping", { replyTo: answer.id, replyPing: false });
    expect(quiet.mentions).toEqual([]);
  });

  it("mentions of the bot's managed role land in mention_roles, not mentions; unknown ids are not mentions", async () => {
    const { general, alice, botRole } = someGuild(discord.fake);
    const message = discord.fake.from(alice).message(general.id, `<@&${botRole.id}> and <@1000000000000000001>`);
    expect([message.mentions, message.mention_roles]).toEqual([[], [botRole.id]]);
  });

  it("attachments are served by the fake's CDN at signed URLs; a tampered or stripped signature is 404", async () => {
    const { general, alice } = someGuild(discord.fake);
    const message = discord.fake.from(alice).message(general.id, "", { attachments: [{ filename: "voice.ogg", bytes: new Uint8Array([1, 2, 3]), contentType: "audio/ogg", voiceSeconds: 2.5 }] });
    const [attachment] = message.attachments;
    expect(attachment).toMatchObject({ filename: "voice.ogg", size: 3, content_type: "audio/ogg", duration_secs: 2.5 });
    expect(message.flags).toBe(1 << 13);
    expect(attachment!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/attachments\/\d+\/\d+\/voice\.ogg\?ex=[0-9a-f]+&is=[0-9a-f]+&hm=[0-9a-f]+&$/);
    const download = await fetch(attachment!.url);
    expect([download.status, download.headers.get("content-type"), [...new Uint8Array(await download.arrayBuffer())]]).toEqual([200, "audio/ogg", [1, 2, 3]]);
    expect((await fetch(attachment!.proxy_url)).status).toBe(200);
    const stripped = await fetch(attachment!.url.split("?")[0]!);
    expect([stripped.status, await stripped.text()]).toEqual([404, "This content is no longer available."]);
    expect((await fetch(attachment!.url.replace(/hm=[0-9a-f]/, "hm=z"))).status).toBe(404);
  });

  it("edits, deletions, reactions and threads by users reach the bot's session", async () => {
    const { general, alice } = someGuild(discord.fake);
    const bot = await connectBot(discord.fake, { intents: (1 << 0) | (1 << 9) | (1 << 10) | (1 << 15) });
    const user = discord.fake.from(alice);
    const message = user.message(general.id, "first draft");
    user.edit(general.id, message.id, "second draft");
    user.react(general.id, message.id, "👍");
    const thread = user.startThread(general.id, "a thread of mine", { fromMessage: message.id });
    user.delete(general.id, message.id);
    await until(() => bot.dispatches.some((dispatch) => dispatch.t === GatewayDispatchEvents.MessageDelete));
    expect(bot.dispatches.slice(-5).map((dispatch) => dispatch.t)).toEqual(["MESSAGE_CREATE", "MESSAGE_UPDATE", "MESSAGE_REACTION_ADD", "THREAD_CREATE", "MESSAGE_DELETE"]);
    expect(bot.dispatches.at(-4)!.d).toMatchObject({ content: "second draft", edited_timestamp: expect.any(String) });
    expect(bot.dispatches.at(-3)!.d).toMatchObject({ user_id: alice.id, emoji: { id: null, name: "👍" }, message_author_id: alice.id });
    expect(thread).toMatchObject({ id: message.id, owner_id: alice.id, type: 11 });
  });

  it("refuses what no user could do: posting where they are not a member, replying to nothing, editing others' messages", async () => {
    const { general, alice, bob } = someGuild(discord.fake);
    const stranger = discord.fake.addUser({ username: "stranger" });
    expect(() => discord.fake.from(stranger).message(general.id, "hi")).toThrow(/not a member/);
    expect(() => discord.fake.from(alice).message(general.id, "re", { replyTo: "1000000000000000001" })).toThrow(/no message/);
    const aliceMessage = discord.fake.from(alice).message(general.id, "mine");
    expect(() => discord.fake.from(bob).edit(general.id, aliceMessage.id, "not yours")).toThrow(/not bob's/);
  });
});
