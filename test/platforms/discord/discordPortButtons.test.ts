import { describe, expect, it } from "vitest";
import type { OutboundChoice, OutboundMessage } from "../../../operators/delivery/outboundMessage.js";
import { sessionKey } from "../../../operators/dispatch/sessionKey.js";
import { BOT, refused, someGuild, until, useDiscordPort } from "./portFixture.js";

const CHOICES: readonly OutboundChoice[] = [
  { label: "Allow once", data: "q7:allow_once" },
  { label: "Allow always", data: "q7:allow_always" },
  { label: "Reject", data: "q7:reject" },
];

/** Buttons under the port's messages, taps on them as events, and answers to taps, against the fake. */
describe("DiscordPort: buttons and taps", () => {
  const t = useDiscordPort();

  /** Alice mentions the bot in #general, the port opens the thread; `ask` posts a question there. */
  async function conversation(keysOf: (guild: ReturnType<typeof someGuild>) => Record<string, unknown> = () => ({})) {
    const guild = someGuild(t.fake);
    await t.open(keysOf(guild));
    await until(() => t.port.isConnected && t.fake.gateway.liveSessions === 1);
    const trigger = t.fake.from(guild.alice).message(guild.general.id, `<@${BOT.id}> clean the build`);
    await until(() => t.events.length === 1);
    const channel = { id: guild.general.id, thread_id: trigger.id };
    const reply = (text: string, more: Partial<OutboundMessage> = {}): OutboundMessage => ({ reply_to: "", platform: "discord", channel, content: { type: "text", text }, ...more });
    const ask = async (text = "Run `rm -rf build`?") => (await t.port.send(reply(text, { choices: CHOICES }), { wantAck: true })).messageId;
    return { ...guild, trigger, thread: trigger.id, reply, ask, asked: t.events[0]! };
  }

  const shownIn = (channelId: string, messageId: string) => t.fake.shown(channelId).find((message) => message.id === messageId)!;

  it("a send with choices carries one action row of grey buttons, custom_id = data; the capability says buttons", async () => {
    const c = await conversation();
    const id = await c.ask();
    expect(shownIn(c.thread, id).message.components).toEqual([
      {
        type: 1,
        components: [
          { type: 2, style: 2, label: "Allow once", custom_id: "q7:allow_once" },
          { type: 2, style: 2, label: "Allow always", custom_id: "q7:allow_always" },
          { type: 2, style: 2, label: "Reject", custom_id: "q7:reject" },
        ],
      },
    ]);
    expect(t.port.capabilities("discord")).toMatchObject({ buttons: true });
    // A plain send has no components at all.
    await t.port.send(c.reply("plain"), { wantAck: true });
    expect(t.fake.callsOf("createMessage").at(-1)!.body).not.toHaveProperty("components");
  });

  it("a text over 2000 characters goes as several messages: the buttons on the last, whose id is the receipt's", async () => {
    const c = await conversation();
    const long = `${"line of context\n".repeat(150)}Proceed?`;
    const id = await c.ask(long);
    const sent = t.fake.shown(c.thread).filter((message) => message.fromBot);
    expect(sent.length).toBe(2);
    expect(sent.map((message) => message.content).join("\n")).toBe(long);
    expect(sent.map((message) => message.message.components?.length ?? 0)).toEqual([0, 1]);
    expect(id).toBe(sent[1]!.id);
  });

  it("edit_message: choices [] removes the buttons, no choices leaves them, new choices replace them", async () => {
    const c = await conversation();
    const id = await c.ask();
    await t.port.send(c.reply("Run `rm -rf build`? (waiting)", { command: "edit_message", reply_to: id }), { wantAck: true });
    expect(t.fake.callsOf("editMessage").at(-1)!.body).not.toHaveProperty("components");
    expect(shownIn(c.thread, id).message.components).toHaveLength(1);
    await t.port.send(c.reply("Which one?", { command: "edit_message", reply_to: id, choices: [{ label: "Only this", data: "q8:a" }] }), { wantAck: true });
    expect(shownIn(c.thread, id).message.components).toEqual([{ type: 1, components: [{ type: 2, style: 2, label: "Only this", custom_id: "q8:a" }] }]);
    await t.port.send(c.reply("✅ Allow once — Ally", { command: "edit_message", reply_to: id, choices: [] }), { wantAck: true });
    expect(shownIn(c.thread, id)).toMatchObject({ content: "✅ Allow once — Ally", message: { components: [] } });
  });

  it("choices Discord would refuse are rejected without a call: six buttons, repeated data", async () => {
    const c = await conversation();
    const calls = t.fake.callsOf("createMessage").length;
    const six = [1, 2, 3, 4, 5, 6].map((n) => ({ label: `${n}`, data: `q:${n}` }));
    expect((await refused(t.port.send(c.reply("too many", { choices: six }), { wantAck: true }))).code).toBe("rejected");
    expect((await refused(t.port.send(c.reply("twice", { choices: [CHOICES[0]!, CHOICES[0]!] }), { wantAck: true }))).code).toBe("rejected");
    expect(t.fake.callsOf("createMessage")).toHaveLength(calls);
  });

  it("a tap is acknowledged at once (type 6, the message untouched) and becomes the conversation's event", async () => {
    const c = await conversation();
    const id = await c.ask();
    const tap = t.fake.from(c.alice).press(c.thread, id, "q7:allow_always");
    await until(() => t.events.length === 2);
    await until(() => t.fake.interaction(tap.id)?.response !== undefined);
    expect(t.fake.interaction(tap.id)!.response).toMatchObject({ type: 6 });
    expect(t.fake.callsOf("createInteractionResponse")).toHaveLength(1);
    expect(shownIn(c.thread, id)).toMatchObject({ edits: 0, message: { components: [{ type: 1 }] } });
    const event = t.events[1]!;
    expect(event).toEqual({
      schema: "openab.gateway.event.v1",
      event_id: `dci${tap.id}`,
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      platform: "discord",
      channel: { id: c.general.id, type: "thread", thread_id: c.thread },
      sender: { id: c.alice.id, name: "alice", display_name: "Ally", is_bot: false },
      content: { type: "text", text: "" },
      mentions: [],
      message_id: id,
      proactive: false,
      tap: { id: `${BOT.id}:${tap.token}`, data: "q7:allow_always" },
    });
    // The same session as the conversation's messages.
    expect(sessionKey(event)).toBe(sessionKey(c.asked));
    // The token is a credential: in no log line.
    expect(JSON.stringify(t.logs)).not.toContain(tap.token);
  });

  it("a tap in a DM keys as the DM's messages do", async () => {
    const { alice, dm } = someGuild(t.fake);
    await t.open({ allow_dm: true });
    await until(() => t.port.isConnected && t.fake.gateway.liveSessions === 1);
    t.fake.from(alice).message(dm.id, "hello");
    await until(() => t.events.length === 1);
    const { messageId } = await t.port.send({ reply_to: "", platform: "discord", channel: { id: dm.id }, content: { type: "text", text: "Pick one" }, choices: CHOICES }, { wantAck: true });
    const tap = t.fake.from(alice).press(dm.id, messageId, "q7:reject");
    await until(() => t.events.length === 2);
    expect(t.events[1]).toMatchObject({ channel: { id: dm.id, type: "dm" }, sender: { id: alice.id, display_name: "Alice" }, message_id: messageId, tap: { data: "q7:reject" } });
    expect(sessionKey(t.events[1]!)).toBe(sessionKey(t.events[0]!));
    expect(t.fake.interaction(tap.id)!.response).toMatchObject({ type: 6 });
  });

  it("answer_tap with a notice: an ephemeral follow-up only the tapper sees, from any edge; receipt messageId \"\"", async () => {
    const c = await conversation();
    const id = await c.ask();
    t.fake.from(c.bob).press(c.thread, id, "q7:reject");
    await until(() => t.events.length === 2);
    const tap = t.events[1]!.tap!;
    // An edge that never received the tap (standing by, no gateway) answers it from the handle alone.
    const other = await t.open({}, { start: false });
    const receipt = await other.send(c.reply("Only Ally can answer this.", { command: "answer_tap", reply_to: tap.id }), { wantAck: true });
    expect(receipt).toEqual({ messageId: "" });
    const [call] = t.fake.callsOf("createFollowupMessage");
    expect(call).toMatchObject({ params: { "application.id": BOT.id }, body: { content: "Only Ally can answer this.", flags: 64, allowed_mentions: { parse: [] } }, status: 200 });
    const notice = t.fake.shown(c.thread).find((message) => message.content === "Only Ally can answer this.")!;
    expect(notice).toMatchObject({ ephemeral: true, message: { interaction_metadata: { user: { id: c.bob.id } } } });
  });

  it("answer_tap without a notice calls nothing (the deferred update acknowledged it); a handle that is none is rejected", async () => {
    const c = await conversation();
    const id = await c.ask();
    t.fake.from(c.alice).press(c.thread, id, "q7:allow_once");
    await until(() => t.events.length === 2);
    const callsBefore = t.fake.calls.length;
    expect(await t.port.send(c.reply("", { command: "answer_tap", reply_to: t.events[1]!.tap!.id }), { wantAck: true })).toEqual({ messageId: "" });
    expect(t.fake.calls).toHaveLength(callsBefore);
    const bad = await refused(t.port.send(c.reply("x", { command: "answer_tap", reply_to: "not/a:handle" }), { wantAck: true }));
    expect([bad.code, bad.message]).toEqual(["rejected", "answer_tap: reply_to is not a Discord tap handle"]);
    // A token Discord never issued (or expired): Discord's 10015, rejected.
    const forged = await refused(t.port.send(c.reply("x", { command: "answer_tap", reply_to: `${BOT.id}:aW50ZXJhY3Rpb246forged` }), { wantAck: true }));
    expect(forged.code).toBe("rejected");
    expect(t.logs.filter((line) => line.msg === "discord refused a reply" && line.route === "createFollowupMessage").map((line) => [line.reason, line.status, line.code])).toEqual([
      ["rejected", undefined, undefined],
      ["rejected", 404, 10015],
    ]);
    expect(JSON.stringify(t.logs)).not.toContain("forged");

  });

  it("malformed taps are acknowledged and dropped with their reason: data over 64 bytes or not a string, no message, no user", async () => {
    const c = await conversation();
    const long = "q:".padEnd(65, "x");
    // Discord takes a custom_id of 100 characters; the broker's data is at most 64 bytes, so a longer one is none of its.
    const { messageId: id } = await t.port.send(c.reply("odd", { choices: [{ label: "long", data: long }, { label: "ok", data: "q:ok" }] }), { wantAck: true });
    const alice = t.fake.from(c.alice);
    const taps = [
      alice.press(c.thread, id, long),
      alice.pressAltered(c.thread, id, "q:ok", (payload) => ({ ...payload, data: { component_type: 2, custom_id: 42 } })),
      alice.pressAltered(c.thread, id, "q:ok", (payload) => ({ ...payload, message: undefined })),
      alice.pressAltered(c.thread, id, "q:ok", (payload) => ({ ...payload, member: undefined, user: undefined })),
    ];
    await until(() => t.logs.filter((line) => line.msg === "discord tap dropped").length === 4);
    expect(t.logs.filter((line) => line.msg === "discord tap dropped").map((line) => line.reason).sort()).toEqual(["data_invalid", "data_too_long", "no_message", "no_user"]);
    expect(t.events).toHaveLength(1);
    await until(() => taps.every((tap) => t.fake.interaction(tap.id)?.response !== undefined));
    expect(taps.map((tap) => t.fake.interaction(tap.id)!.response!.type)).toEqual([6, 6, 6, 6]);
    expect(t.fake.callsOf("createFollowupMessage")).toHaveLength(0);
  });

  it("a tap with a token that cannot be one is dropped unanswered (bad_interaction)", async () => {
    const c = await conversation();
    const id = await c.ask();
    t.fake.from(c.alice).pressAltered(c.thread, id, "q7:reject", (payload) => ({ ...payload, token: "../../users/@me" }));
    await until(() => t.logs.some((line) => line.msg === "discord tap dropped"));
    expect(t.logs.find((line) => line.msg === "discord tap dropped")).toMatchObject({ reason: "bad_interaction", channelId: c.thread, messageId: id });
    expect(t.fake.callsOf("createInteractionResponse")).toHaveLength(0);
    expect(t.events).toHaveLength(1);
  });

  it("a person allowed_users leaves out is told so, only them, and their tap is no event", async () => {
    const c = await conversation((guild) => ({ allowed_users: [guild.alice.id] }));
    const id = await c.ask();
    const tap = t.fake.from(c.bob).press(c.thread, id, "q7:allow_once");
    await until(() => t.fake.interaction(tap.id)?.followUpIds.length === 1);
    expect(t.fake.interaction(tap.id)!.response).toMatchObject({ type: 6 });
    const notice = t.fake.shown(c.thread).find((message) => message.id === t.fake.interaction(tap.id)!.followUpIds[0])!;
    expect(notice).toMatchObject({ content: "⚠️ This bot does not take answers from you here.", ephemeral: true, message: { interaction_metadata: { user: { id: c.bob.id } } } });
    expect(t.logs.find((line) => line.msg === "discord tap dropped")).toMatchObject({ reason: "denied_user", userId: c.bob.id, messageId: id });
    expect(t.events).toHaveLength(1);
  });
});
