import { describe, expect, it } from "vitest";
import { API } from "@discordjs/core";
import { refusal, someGuild, useFakeDiscord } from "./fakeDiscordFixture.js";

describe("fake Discord: the bot's reactions", () => {
  const discord = useFakeDiscord();
  const api = () => new API(discord.rest);

  it("adds and removes Unicode reactions (URL-encoded by @discordjs/core) with 204, idempotently", async () => {
    const { general, alice } = someGuild(discord.fake);
    const message = discord.fake.from(alice).message(general.id, "look");
    await api().channels.addMessageReaction(general.id, message.id, "👀");
    await api().channels.addMessageReaction(general.id, message.id, "👀");
    await api().channels.addMessageReaction(general.id, message.id, "⚠️");
    // A text-style base without U+FE0F is taken too, as Discord's clients send both.
    await api().channels.addMessageReaction(general.id, message.id, "✅");
    expect(discord.fake.shown(general.id)[0]!.reactions).toEqual(["👀", "⚠️", "✅"]);
    await api().channels.deleteOwnMessageReaction(general.id, message.id, "👀");
    await api().channels.deleteOwnMessageReaction(general.id, message.id, "🚫");
    expect(discord.fake.shown(general.id)[0]!.reactions).toEqual(["⚠️", "✅"]);
    expect(discord.fake.callsOf("createReaction").map((call) => [call.status, call.params.emoji])).toEqual([
      [204, "👀"],
      [204, "👀"],
      [204, "⚠️"],
      [204, "✅"],
    ]);
    const fetched = await api().channels.getMessage(general.id, message.id);
    expect(fetched.reactions).toMatchObject([{ emoji: { id: null, name: "⚠️" }, count: 1, me: true }, { emoji: { name: "✅" }, count: 1, me: true }]);
  });

  it("takes a custom emoji as name:id of a guild the bot is in", async () => {
    const { guild, general, alice } = someGuild(discord.fake);
    const party = discord.fake.addEmoji(guild.id, "partyparrot");
    const message = discord.fake.from(alice).message(general.id, "release!");
    await api().channels.addMessageReaction(general.id, message.id, `partyparrot:${party.id}`);
    expect(discord.fake.shown(general.id)[0]!.reactions).toEqual([`partyparrot:${party.id}`]);
  });

  it("answers 10014 Unknown Emoji for a name, :shortcode:, two emoji, or a custom emoji of no guild the bot is in", async () => {
    const { general, alice } = someGuild(discord.fake);
    const message = discord.fake.from(alice).message(general.id, "react to me");
    for (const emoji of ["thumbsup", ":thumbsup:", "👍👍", "nope:1000000000000000001"]) {
      expect(await refusal(api().channels.addMessageReaction(general.id, message.id, emoji))).toMatchObject({ status: 400, code: 10014, message: "Unknown Emoji" });
    }
  });

  it("needs READ_MESSAGE_HISTORY, and ADD_REACTIONS only to be the first with an emoji; an unknown message is 10008", async () => {
    const { general, alice } = someGuild(discord.fake);
    const message = discord.fake.from(alice).message(general.id, "hi");
    discord.fake.from(alice).react(general.id, message.id, "👋");
    discord.fake.restrict(general.id, { addReactions: false });
    await api().channels.addMessageReaction(general.id, message.id, "👋");
    expect(await refusal(api().channels.addMessageReaction(general.id, message.id, "🎉"))).toMatchObject({ status: 403, code: 50013 });
    discord.fake.restrict(general.id, { readHistory: false });
    expect(await refusal(api().channels.addMessageReaction(general.id, message.id, "👋"))).toMatchObject({ code: 50013 });
    discord.fake.restrict(general.id, { readHistory: true });
    expect(await refusal(api().channels.addMessageReaction(general.id, "1000000000000000001", "👋"))).toMatchObject({ status: 404, code: 10008 });
  });
});
