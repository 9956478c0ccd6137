import { describe, expect, it } from "vitest";
import { API, ApplicationCommandOptionType, ComponentType, GatewayDispatchEvents, MessageFlags, type APIInteraction } from "@discordjs/core";
import { BOT, connectBot, refusal, someGuild, until, useFakeDiscord } from "./fakeDiscordFixture.js";

describe("fake Discord: interactions", () => {
  const discord = useFakeDiscord({ interactionResponseMs: 500 });
  const api = () => new API(discord.rest);

  async function withCommands() {
    const chats = someGuild(discord.fake);
    await api().applicationCommands.bulkOverwriteGlobalCommands(BOT.id, [
      { name: "cancel", description: "Cancel the current operation" },
      { name: "remind", description: "Remind me", options: [{ type: ApplicationCommandOptionType.String, name: "when", description: "when", required: true }, { type: ApplicationCommandOptionType.User, name: "who", description: "who" }] },
    ]);
    return chats;
  }

  it("delivers a slash command as INTERACTION_CREATE to @discordjs/core, which replies (type 4, ephemeral) through the fake", async () => {
    const { general, alice, bob } = await withCommands();
    const bot = await connectBot(discord.fake);
    const received: APIInteraction[] = [];
    bot.client.on(GatewayDispatchEvents.InteractionCreate, async ({ data, api: clientApi }) => {
      received.push(data);
      await clientApi.interactions.reply(data.id, data.token, { content: "🛑 Cancel signal sent.", flags: MessageFlags.Ephemeral });
    });
    const interaction = discord.fake.from(alice).slash(general.id, "remind", { when: "5m", who: bob.id });
    await until(() => discord.fake.interaction(interaction.id)?.response !== undefined);
    expect(received[0]).toMatchObject({ type: 2, channel_id: general.id, member: { user: { id: alice.id }, nick: "Ally" }, data: { name: "remind", type: 1, options: [{ name: "when", type: 3, value: "5m" }, { name: "who", type: 6, value: bob.id }], resolved: { users: { [bob.id]: { username: "bob" } } } } });
    expect(discord.fake.shown(general.id)).toMatchObject([{ fromBot: true, content: "🛑 Cancel signal sent.", ephemeral: true }]);
    expect(discord.fake.callsOf("createInteractionResponse")[0]).toMatchObject({ status: 204, body: { type: 4 } });
  });

  it("accepts one response per interaction: a second is 40060, a wrong token or id 10062", async () => {
    const { general, alice } = await withCommands();
    const { id, token } = discord.fake.from(alice).slash(general.id, "cancel");
    await api().interactions.reply(id, token, { content: "first" });
    expect(await refusal(api().interactions.reply(id, token, { content: "second" }))).toMatchObject({ status: 400, code: 40060, message: "Interaction has already been acknowledged." });
    const other = discord.fake.from(alice).slash(general.id, "cancel");
    expect(await refusal(api().interactions.reply(other.id, "not-the-token", { content: "x" }))).toMatchObject({ status: 404, code: 10062, message: "Unknown interaction" });
    expect(await refusal(api().interactions.reply(other.id, other.token, {}))).toMatchObject({ code: 50006 });
  });

  it("invalidates the token when the response comes after the response window (3 s on Discord; 500 ms here)", async () => {
    const { general, alice } = await withCommands();
    const { id, token } = discord.fake.from(alice).slash(general.id, "cancel");
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect((await refusal(api().interactions.reply(id, token, { content: "too late" }))).code).toBe(10062);
  });

  it("defers (type 5) and then edits @original through the webhook route; with_response reports the loading message", async () => {
    const { general, alice } = await withCommands();
    const { id, token } = discord.fake.from(alice).slash(general.id, "cancel");
    const deferred = await api().interactions.defer(id, token, { with_response: true });
    expect(deferred).toMatchObject({ interaction: { id, type: 2, response_message_loading: true, response_message_ephemeral: false }, resource: { type: 5 } });
    expect(discord.fake.shown(general.id)[0]!.message.flags).toBe(MessageFlags.Loading);
    const edited = await api().interactions.editReply(BOT.id, token, { content: "🔄 Session reset. Start a new conversation!" });
    expect(edited).toMatchObject({ content: "🔄 Session reset. Start a new conversation!", flags: 0, interaction_metadata: { id, user: { id: alice.id } } });
    expect(await refusal(api().interactions.editReply(BOT.id, token, { content: "x".repeat(2001) }))).toMatchObject({ code: 50035 });
    expect(await refusal(api().interactions.editReply(BOT.id, "unknown-token", { content: "x" }))).toMatchObject({ status: 404, code: 10015, message: "Unknown Webhook" });
  });

  it("answers a select menu with type 7 (the menu's message updated) and a button with type 6; refuses 6 and 7 for a slash command", async () => {
    const { general, alice } = await withCommands();
    const menu = await api().channels.createMessage(general.id, {
      content: "🔧 Select a model:",
      components: [{ type: ComponentType.ActionRow, components: [{ type: ComponentType.StringSelect, custom_id: "acp_config_model", options: [{ label: "fast", value: "fast" }, { label: "slow", value: "slow" }] }] }],
    });
    const pick = discord.fake.from(alice).select(general.id, menu.id, "acp_config_model", ["fast"]);
    expect(pick.payload).toMatchObject({ type: 3, data: { custom_id: "acp_config_model", component_type: 3, values: ["fast"] }, message: { id: menu.id } });
    await api().interactions.updateMessage(pick.id, pick.token, { content: "✅ Switched to **fast**", components: [] });
    expect(discord.fake.shown(general.id)).toMatchObject([{ id: menu.id, content: "✅ Switched to **fast**", earlierContents: ["🔧 Select a model:"] }]);
    const slash = discord.fake.from(alice).slash(general.id, "cancel");
    expect((await refusal(api().interactions.updateMessage(slash.id, slash.token, { content: "x" }))).code).toBe(50035);
    expect((await refusal(api().interactions.deferMessageUpdate(slash.id, slash.token))).code).toBe(50035);
    expect(() => discord.fake.from(alice).press(general.id, menu.id, "no_such_button")).toThrow(/has no component/);
  });
});
