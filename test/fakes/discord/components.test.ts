import { describe, expect, it } from "vitest";
import { API, ButtonStyle, ComponentType, GatewayDispatchEvents, MessageFlags, type APIActionRowComponent, type APIInteraction } from "@discordjs/core";
import { BOT, connectBot, refusal, someGuild, until, useFakeDiscord } from "./fakeDiscordFixture.js";

const button = (custom_id: string, label = custom_id, style = ButtonStyle.Secondary) => ({ type: ComponentType.Button, style, label, custom_id });
const row = (...buttons: object[]) => ({ type: ComponentType.ActionRow, components: buttons }) as unknown as APIActionRowComponent<never>;

describe("fake Discord: buttons, taps and follow-ups", () => {
  // The fake's clock runs `ahead` of the real one, so a test can let 15 minutes pass at once.
  const clock = { ahead: 0 };
  const discord = useFakeDiscord({ interactionResponseMs: 500, now: () => Date.now() + clock.ahead });
  const api = () => new API(discord.rest);

  async function question() {
    clock.ahead = 0;
    const chats = someGuild(discord.fake);
    const asked = await api().channels.createMessage(chats.general.id, { content: "Run `ls`?", components: [row(button("q1:allow", "Allow once", ButtonStyle.Primary), button("q1:reject", "Reject"))] });
    return { ...chats, asked };
  }

  it("keeps an action row of buttons on a message and shows it back", async () => {
    const { general, asked } = await question();
    expect(asked.components).toEqual([{ type: 1, components: [button("q1:allow", "Allow once", ButtonStyle.Primary), button("q1:reject", "Reject")] }]);
    expect(discord.fake.shown(general.id)[0]!.message.components).toEqual(asked.components);
  });

  it("refuses components as Discord documents them: rows only, ≤5 rows of ≤5 buttons, label ≤80, custom_id 1–100 and unique, styles 1–5, a link without custom_id", async () => {
    const { general } = await question();
    const send = (components: unknown[]) => refusal(api().channels.createMessage(general.id, { content: "q", components: components as never }));
    const errorsOf = async (components: unknown[]) => (await send(components)).rawError as { code: number; errors: Record<string, unknown> };
    const six = [1, 2, 3, 4, 5, 6].map((n) => button(`b${n}`));
    expect(await errorsOf([row(...six)])).toMatchObject({ code: 50035, errors: { components: { "0": { components: { _errors: [{ code: "BASE_TYPE_BAD_LENGTH", message: "Must be between 1 and 5 in length." }] } } } } });
    expect((await errorsOf([row()])).errors).toMatchObject({ components: { "0": { components: { _errors: [{ code: "BASE_TYPE_BAD_LENGTH" }] } } } });
    expect((await errorsOf([1, 2, 3, 4, 5, 6].map((n) => row(button(`r${n}`))))).errors).toMatchObject({ components: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH" }] } });
    expect((await errorsOf([button("bare")])).errors).toMatchObject({ components: { "0": { type: { _errors: [{ code: "UNION_TYPE_CHOICES" }] } } } });
    expect((await errorsOf([row(button("long", "x".repeat(81)))])).errors).toMatchObject({ components: { "0": { components: { "0": { label: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH" }] } } } } } });
    expect((await errorsOf([row(button("x".repeat(101), "l"))])).errors).toMatchObject({ components: { "0": { components: { "0": { custom_id: { _errors: [{ code: "BASE_TYPE_BAD_LENGTH" }] } } } } } });
    expect((await errorsOf([row(button("", "empty"))])).errors).toMatchObject({ components: { "0": { components: { "0": { custom_id: { _errors: [{ code: "BASE_TYPE_BAD_LENGTH" }] } } } } } });
    expect((await errorsOf([row(button("same")), row(button("same"))])).errors).toMatchObject({ components: { "1": { components: { "0": { custom_id: { _errors: [{ code: "COMPONENT_CUSTOM_ID_DUPLICATED" }] } } } } } });
    expect((await errorsOf([row({ type: 2, style: 7, label: "x", custom_id: "s" })])).errors).toMatchObject({ components: { "0": { components: { "0": { style: { _errors: [{ code: "BASE_TYPE_CHOICES" }] } } } } } });
    expect((await errorsOf([row({ type: 2, style: 5, label: "docs", custom_id: "link" })])).errors).toMatchObject({ components: { "0": { components: { "0": { custom_id: {}, url: { _errors: [{ code: "BASE_TYPE_REQUIRED" }] } } } } } });
    expect((await errorsOf([row({ type: 2, style: 1, label: "no id" })])).errors).toMatchObject({ components: { "0": { components: { "0": { custom_id: { _errors: [{ code: "BASE_TYPE_REQUIRED" }] } } } } } });
    expect((await errorsOf([row({ type: 2, style: 2, custom_id: "nolabel" })])).errors).toMatchObject({ components: { "0": { components: { "0": { label: {} } } } } });
    // A link button is fine without a custom_id; five buttons in a row are fine.
    await api().channels.createMessage(general.id, { content: "ok", components: [row({ type: 2, style: 5, label: "docs", url: "https://discord.com/developers/docs" }), row(...six.slice(0, 5))] });
  });

  it("an edit with components: [] removes the buttons; an edit without components leaves them", async () => {
    const { general, alice, asked } = await question();
    await api().channels.editMessage(general.id, asked.id, { content: "Run `ls`? (still open)" });
    expect(discord.fake.shown(general.id)[0]!.message.components).toHaveLength(1);
    await api().channels.editMessage(general.id, asked.id, { content: "✅ Allow once — Ally", components: [] });
    expect(discord.fake.shown(general.id)[0]).toMatchObject({ content: "✅ Allow once — Ally", message: { components: [] } });
    expect(() => discord.fake.from(alice).press(general.id, asked.id, "q1:allow")).toThrow(/has no component/);
  });

  it("a person presses a button of the bot's message: INTERACTION_CREATE type 3 with a token reaches the bot's session", async () => {
    const { general, alice, asked } = await question();
    const bot = await connectBot(discord.fake);
    const received: APIInteraction[] = [];
    bot.client.on(GatewayDispatchEvents.InteractionCreate, ({ data }) => void received.push(data));
    const tap = discord.fake.from(alice).press(general.id, asked.id, "q1:reject");
    await until(() => received.length === 1);
    expect(received[0]).toMatchObject({ id: tap.id, type: 3, token: tap.token, application_id: BOT.id, channel_id: general.id, member: { user: { id: alice.id } }, data: { custom_id: "q1:reject", component_type: 2 }, message: { id: asked.id } });
    expect(tap.token.length).toBeGreaterThan(60);
    // Nothing a person could do: press a button not on the message, or on a message of their own; pick from a button.
    expect(() => discord.fake.from(alice).press(general.id, asked.id, "q1:maybe")).toThrow(/has no component/);
    const own = discord.fake.from(alice).message(general.id, "mine");
    expect(() => discord.fake.from(alice).press(general.id, own.id, "q1:allow")).toThrow(/has no component/);
    expect(() => discord.fake.from(alice).select(general.id, asked.id, "q1:allow", ["x"])).toThrow(/is a button/);
    const disabled = await api().channels.createMessage(general.id, { content: "closed", components: [row({ ...button("q2:allow"), disabled: true })] });
    expect(() => discord.fake.from(alice).press(general.id, disabled.id, "q2:allow")).toThrow(/cannot be used/);
  });

  it("DEFERRED_UPDATE_MESSAGE (6) answers a tap once and within the window, leaving the message as it is", async () => {
    const { general, alice, asked } = await question();
    const tap = discord.fake.from(alice).press(general.id, asked.id, "q1:allow");
    await api().interactions.deferMessageUpdate(tap.id, tap.token);
    expect(discord.fake.interaction(tap.id)).toMatchObject({ response: { type: 6 }, originalMessageId: asked.id });
    expect((await refusal(api().interactions.deferMessageUpdate(tap.id, tap.token))).code).toBe(40060);
    expect(discord.fake.shown(general.id)).toMatchObject([{ id: asked.id, content: "Run `ls`?", edits: 0 }]);
    const late = discord.fake.from(alice).press(general.id, asked.id, "q1:allow");
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect((await refusal(api().interactions.deferMessageUpdate(late.id, late.token))).code).toBe(10062);
  });

  it("a follow-up with flags 64 is ephemeral, the tapper's alone; only for a token the fake issued, after the response, within 15 minutes", async () => {
    const { general, bob, asked } = await question();
    const tap = discord.fake.from(bob).press(general.id, asked.id, "q1:allow");
    // Before the interaction is acknowledged there is no webhook to follow up on.
    expect((await refusal(api().interactions.followUp(BOT.id, tap.token, { content: "too soon", flags: MessageFlags.Ephemeral }))).code).toBe(10015);
    await api().interactions.deferMessageUpdate(tap.id, tap.token);
    const notice = await api().interactions.followUp(BOT.id, tap.token, { content: "Only Ally can answer this.", flags: MessageFlags.Ephemeral });
    expect(notice).toMatchObject({ content: "Only Ally can answer this.", flags: MessageFlags.Ephemeral, interaction_metadata: { id: tap.id, user: { id: bob.id } } });
    expect(discord.fake.interaction(tap.id)!.followUpIds).toEqual([notice.id]);
    expect(discord.fake.shown(general.id).find((message) => message.id === notice.id)).toMatchObject({ ephemeral: true, fromBot: true });
    expect(discord.fake.callsOf("createFollowupMessage").map((call) => [call.query.wait, call.status])).toEqual([["true", 404], ["true", 200]]);
    expect((await refusal(api().interactions.followUp(BOT.id, "aW50ZXJhY3Rpb246forged", { content: "x", flags: MessageFlags.Ephemeral }))).code).toBe(10015);
    expect((await refusal(api().interactions.followUp("1000000000000000001", tap.token, { content: "x" }))).code).toBe(10015);
    expect((await refusal(api().interactions.followUp(BOT.id, tap.token, { content: "" }))).code).toBe(50006);
    expect((await refusal(api().interactions.followUp(BOT.id, tap.token, { content: "x".repeat(2001) }))).code).toBe(50035);
    clock.ahead = 15 * 60_000 + 1_000;
    expect((await refusal(api().interactions.followUp(BOT.id, tap.token, { content: "an hour later", flags: MessageFlags.Ephemeral }))).code).toBe(10015);
  });
});
