import { describe, expect, it } from "vitest";
import type { OutboundChoice, OutboundMessage } from "../../../operators/delivery/outboundMessage.js";
import type { ShownMessage } from "../../fakes/discord/index.js";
import { BOT, someGuild, until, useDiscordPort } from "./portFixture.js";

const CHOICES: readonly OutboundChoice[] = [
  { label: "Yes", data: "q9:yes" },
  { label: "No", data: "q9:no" },
];

/** Discord's escape undone: what a backslash before a mark leaves. */
const unescaped = (content: string) => content.replace(/\\([^0-9A-Za-z\s])/g, "$1");

/**
 * `plainText` messages (a question's) against the fake: the person reads exactly the text (the
 * fake renders Markdown and mentions as Discord's client does, `ShownMessage.shown`), and nobody
 * is pinged (the fake parses mentions from the content, escaped or not, as Discord's server does).
 */
describe("DiscordPort: plain text", () => {
  const t = useDiscordPort();

  async function conversation() {
    const guild = someGuild(t.fake);
    await t.open();
    await until(() => t.port.isConnected && t.fake.gateway.liveSessions === 1);
    const trigger = t.fake.from(guild.alice).message(guild.general.id, `<@${BOT.id}> clean up`);
    await until(() => t.events.length === 1);
    const channel = { id: guild.general.id, thread_id: trigger.id };
    const reply = (text: string, more: Partial<OutboundMessage> = {}): OutboundMessage => ({ reply_to: "", platform: "discord", channel, content: { type: "text", text }, ...more });
    const plain = (text: string, more: Partial<OutboundMessage> = {}) => reply(text, { plainText: true, ...more });
    // What a question quotes: every mark Discord reads, two people's and the server's mentions.
    const question = `Run \`echo $((6*7))\`? *bold* _x_ [a](http://x) <@${guild.alice.id}> <@&${guild.helpers.id}> @everyone & done`;
    const escaped = `Run \\\`echo $((6\\*7))\\\`? \\*bold\\* \\_x\\_ \\[a\\](http\\://x) \\<\\@${guild.alice.id}> \\<\\@&${guild.helpers.id}> \\@everyone & done`;
    return { ...guild, thread: trigger.id, reply, plain, question, escaped };
  }

  const shownIn = (channelId: string, messageId: string): ShownMessage => t.fake.shown(channelId).find((message) => message.id === messageId)!;
  const pings = (shown: ShownMessage) => ({ users: shown.message.mentions.map((user) => user.id), roles: shown.message.mention_roles, everyone: shown.message.mention_everyone });
  const NO_PINGS = { users: [], roles: [], everyone: false };

  it("a question with buttons shows exactly its text, escaped, and pings no one; the same text unmarked would not", async () => {
    const c = await conversation();
    const { messageId } = await t.port.send(c.plain(c.question, { choices: CHOICES }), { wantAck: true });
    const call = t.fake.callsOf("createMessage").at(-1)!;
    expect(call.body).toMatchObject({ content: c.escaped, allowed_mentions: { parse: [] }, components: [{ type: 1 }] });
    expect(unescaped(c.escaped)).toBe(c.question);
    const shown = shownIn(c.thread, messageId);
    expect(shown.shown).toBe(c.question);
    expect(pings(shown)).toEqual(NO_PINGS);
    // The fake tells them apart: sent as Markdown, the marks are formatting and Ally and the helpers are pinged.
    const marked = shownIn(c.thread, (await t.port.send(c.reply(c.question), { wantAck: true })).messageId);
    expect(marked.shown).toBe(`Run echo $((6*7))? bold x a @Ally @helpers @everyone & done`);
    expect(pings(marked)).toEqual({ users: [c.alice.id], roles: [c.helpers.id], everyone: false });
  });

  it("block marks at a line's start stay characters: headings, subtext, lists, quotes, spoilers", async () => {
    const c = await conversation();
    const text = "# Deploy\n-# small print\n- step one\n* step two\n1. first\n1. again\n> quoted\n>>> the rest\n||secret|| ~~old~~ __new__ **now**\n```sh\nrm -rf build\n```";
    const { messageId } = await t.port.send(c.plain(text, { choices: CHOICES }), { wantAck: true });
    expect(t.fake.callsOf("createMessage").at(-1)!.body).toMatchObject({
      content: "\\# Deploy\n\\-# small print\n\\- step one\n\\* step two\n1\\. first\n1\\. again\n\\> quoted\n\\>>> the rest\n\\|\\|secret\\|\\| \\~\\~old\\~\\~ \\_\\_new\\_\\_ \\*\\*now\\*\\*\n\\`\\`\\`sh\nrm -rf build\n\\`\\`\\`",
    });
    expect(shownIn(c.thread, messageId).shown).toBe(text);
    expect(shownIn(c.thread, (await t.port.send(c.reply(text), { wantAck: true })).messageId).shown).toBe(
      "Deploy\nsmall print\n• step one\n• step two\n1. first\n2. again\nquoted\nthe rest\nsecret old new now\nrm -rf build",
    );
  });

  it("the edit that closes the question (choices []) and one that keeps its buttons are escaped and ping no one", async () => {
    const c = await conversation();
    const { messageId } = await t.port.send(c.plain(c.question, { choices: CHOICES }), { wantAck: true });
    const toggled = `${c.question}\n☑ *Yes*`;
    await t.port.send(c.plain(toggled, { command: "edit_message", reply_to: messageId, choices: [{ label: "☑ Yes", data: "q9:yes" }, ...CHOICES.slice(1)] }), { wantAck: true });
    expect(shownIn(c.thread, messageId)).toMatchObject({ shown: toggled, message: { components: [{ type: 1, components: [{ label: "☑ Yes" }, { label: "No" }] }] } });
    const closed = `${c.question}\n✅ Yes — chosen by _Ally_`;
    await t.port.send(c.plain(closed, { command: "edit_message", reply_to: messageId, choices: [] }), { wantAck: true });
    const edits = t.fake.callsOf("editMessage");
    expect(edits.map((call) => call.body)).toEqual([
      expect.objectContaining({ content: `${c.escaped}\n☑ \\*Yes\\*`, allowed_mentions: { parse: [] } }),
      { content: `${c.escaped}\n✅ Yes — chosen by \\_Ally\\_`, allowed_mentions: { parse: [] }, components: [] },
    ]);
    const shown = shownIn(c.thread, messageId);
    expect(shown).toMatchObject({ shown: closed, edits: 2, message: { components: [] } });
    expect(pings(shown)).toEqual(NO_PINGS);
  });

  it("the expired edit and the timeout notice are plain too", async () => {
    const c = await conversation();
    const { messageId } = await t.port.send(c.plain(c.question, { choices: CHOICES }), { wantAck: true });
    await t.port.send(c.plain("⌛ This question expired (the agent_was_restarted).", { command: "edit_message", reply_to: messageId, choices: [] }), { wantAck: true });
    expect(shownIn(c.thread, messageId).shown).toBe("⌛ This question expired (the agent_was_restarted).");
    const notice = await t.port.send(c.plain("⏱ No answer in time: *No* was chosen."), { wantAck: true });
    expect(shownIn(c.thread, notice.messageId).shown).toBe("⏱ No answer in time: *No* was chosen.");
  });

  it("a quote Discord refuses goes again plainly, still escaped, still pinging no one", async () => {
    const c = await conversation();
    const quoted = t.fake.from(c.alice).message(c.thread, "go ahead?");
    t.fake.failNext("createMessage", { status: 400, code: 50035, message: "Invalid Form Body" });
    const { messageId } = await t.port.send(c.plain(c.question, { quote_message_id: quoted.id, choices: CHOICES }), { wantAck: true });
    const [refused, again] = t.fake.callsOf("createMessage").slice(-2);
    expect(refused).toMatchObject({ status: 400, body: { content: c.escaped, allowed_mentions: { parse: [] }, message_reference: { message_id: quoted.id } } });
    expect(again).toMatchObject({ status: 200, body: { content: c.escaped, allowed_mentions: { parse: [] } } });
    expect(again!.body).not.toHaveProperty("message_reference");
    const shown = shownIn(c.thread, messageId);
    expect(shown).toMatchObject({ shown: c.question, replyTo: undefined });
    expect(pings(shown)).toEqual(NO_PINGS);
  });

  it("a text within 2000 characters that escaping takes past them is split: each message within 2000, the buttons on the last", async () => {
    const c = await conversation();
    const line = "ls *.log | grep _err_ # `tail` [x]";
    const text = Array.from({ length: 50 }, (_, i) => `${i}: ${line}`).join("\n");
    expect([...text].length).toBeLessThanOrEqual(2000);
    const { messageId } = await t.port.send(c.plain(text, { choices: CHOICES }), { wantAck: true });
    const sent = t.fake.shown(c.thread).filter((message) => message.fromBot);
    expect(sent.length).toBeGreaterThan(1);
    for (const message of sent) expect([...message.content].length).toBeLessThanOrEqual(2000);
    expect(sent.map((message) => message.shown).join("\n")).toBe(text);
    expect(sent.map((message) => unescaped(message.content)).join("\n")).toBe(text);
    expect(sent.map((message) => message.message.components?.length ?? 0)).toEqual([...sent.slice(1).map(() => 0), 1]);
    expect(messageId).toBe(sent.at(-1)!.id);
    expect(t.fake.callsOf("createMessage").filter((call) => call.params["channel.id"] === c.thread).every((call) => call.status === 200)).toBe(true);
  });

  it("answer_tap's notice is escaped too, only the tapper sees it", async () => {
    const c = await conversation();
    const { messageId } = await t.port.send(c.plain(c.question, { choices: CHOICES }), { wantAck: true });
    t.fake.from(c.bob).press(c.thread, messageId, "q9:yes");
    await until(() => t.events.length === 2);
    const notice = "Only *Ally* can answer `this` <@&" + c.helpers.id + ">.";
    await t.port.send(c.plain(notice, { command: "answer_tap", reply_to: t.events[1]!.tap!.id }), { wantAck: true });
    expect(t.fake.callsOf("createFollowupMessage").at(-1)).toMatchObject({
      status: 200,
      body: { content: `Only \\*Ally\\* can answer \\\`this\\\` \\<\\@&${c.helpers.id}>.`, flags: 64, allowed_mentions: { parse: [] } },
    });
    const shown = t.fake.shown(c.thread).find((message) => message.ephemeral)!;
    expect(shown.shown).toBe(notice);
    expect(pings(shown)).toEqual(NO_PINGS);
  });
});
