import { describe, expect, it } from "vitest";
import type { OutboundMessage } from "../../../operators/delivery/outboundMessage.js";
import { BOT, refused, someGuild, until, useDiscordPort } from "./portFixture.js";

/** The port's replies against the fake: each OutboundMessage as Discord shows it, each failure as the gateway's ack names it. */
describe("DiscordPort: replies", () => {
  const t = useDiscordPort();

  /** A conversation: Alice mentions the bot in #general, the port opens the thread. */
  async function conversation() {
    const guild = someGuild(t.fake);
    await t.open();
    await until(() => t.port.isConnected && t.fake.gateway.liveSessions === 1);
    const trigger = t.fake.from(guild.alice).message(guild.general.id, `<@${BOT.id}> hi`);
    await until(() => t.events.length === 1);
    const channel = { id: guild.general.id, thread_id: trigger.id };
    const reply = (text: string, more: Partial<OutboundMessage> = {}): OutboundMessage => ({ reply_to: trigger.id, platform: "discord", channel, content: { type: "text", text }, ...more });
    return { ...guild, trigger, thread: trigger.id, reply };
  }

  it("an agent's @everyone and @here do not ping: sends and edits let Discord parse user and role mentions only", async () => {
    const c = await conversation();
    const sent = await t.port.send(c.reply("@everyone @here look", { reply_to: "" }), { wantAck: true });
    await t.port.send(c.reply("@everyone still not", { command: "edit_message", reply_to: sent.messageId }), { wantAck: true });
    const writes = [...t.fake.callsOf("createMessage"), ...t.fake.callsOf("editMessage")].filter((call) => call.params["channel.id"] === c.thread);
    expect(writes).toHaveLength(2);
    for (const call of writes) expect((call.body as { allowed_mentions?: unknown }).allowed_mentions).toEqual({ parse: ["users", "roles"] });
  });

  it("send, edit and delete land in the thread as Discord shows them, acked with message ids", async () => {
    const c = await conversation();
    const sent = await t.port.send(c.reply("…", { reply_to: "" }), { wantAck: true });
    await t.port.send(c.reply("the whole answer", { command: "edit_message", reply_to: sent.messageId }), { wantAck: true });
    expect(t.fake.shown(c.thread).filter((message) => message.fromBot).map((message) => [message.id, message.content, message.earlierContents])).toEqual([[sent.messageId, "the whole answer", ["…"]]]);
    const second = await t.port.send(c.reply("to be removed", { reply_to: "" }), { wantAck: true });
    expect(await t.port.send(c.reply("", { command: "delete_message", reply_to: second.messageId }), { wantAck: true })).toEqual({ messageId: second.messageId });
    expect(t.fake.botTexts(c.thread)).toEqual(["the whole answer"]);
  });

  it("reactions go on the triggering message, which stays in the parent channel; removing takes the bot's own", async () => {
    const c = await conversation();
    await t.port.send(c.reply("👀", { command: "add_reaction" }), { wantAck: true });
    await t.port.send(c.reply("🤔", { command: "add_reaction" }), { wantAck: true });
    await t.port.send(c.reply("👀", { command: "remove_reaction" }), { wantAck: true });
    expect(t.fake.shown(c.general.id).find((message) => message.id === c.trigger.id)!.reactions).toEqual(["🤔"]);
    // A message inside the thread is reacted to there.
    const inThread = t.fake.from(c.alice).message(c.thread, "more");
    await t.port.send(c.reply("✅", { command: "add_reaction", reply_to: inThread.id }), { wantAck: true });
    expect(t.fake.shown(c.thread).find((message) => message.id === inThread.id)!.reactions).toEqual(["✅"]);
  });

  it("a quote is a message_reference; one Discord refuses is sent plainly", async () => {
    const c = await conversation();
    const inThread = t.fake.from(c.alice).message(c.thread, "quote me");
    const quoted = await t.port.send(c.reply("quoting", { reply_to: "", quote_message_id: inThread.id }), { wantAck: true });
    expect(t.fake.shown(c.thread).find((message) => message.id === quoted.messageId)!.replyTo).toBe(inThread.id);
    t.fake.failNext("createMessage", { status: 400, code: 50035, message: "Invalid Form Body" });
    const plain = await t.port.send(c.reply("plainly", { reply_to: "", quote_message_id: inThread.id }), { wantAck: true });
    expect(t.fake.shown(c.thread).find((message) => message.id === plain.messageId)).toMatchObject({ content: "plainly", replyTo: undefined });
  });

  it("create_topic for a message starts a thread from it (a cron job's post), answered with the thread's id", async () => {
    const guild = someGuild(t.fake);
    await t.open();
    const post = await t.port.send({ reply_to: "", platform: "discord", channel: { id: guild.general.id }, content: { type: "text", text: "🕐 [cron]: digest" } }, { wantAck: true });
    const topic = { reply_to: "", quote_message_id: post.messageId, platform: "discord", channel: { id: guild.general.id }, content: { type: "text", text: "digest" }, command: "create_topic" } as const;
    const { messageId: thread } = await t.port.send(topic, { wantAck: true });
    expect(t.fake.threads(guild.general.id)).toEqual([expect.objectContaining({ id: thread, name: "digest", starterMessageId: post.messageId, autoArchiveDuration: 1440 })]);
    expect(t.fake.callsOf("startThreadFromMessage")).toHaveLength(1);
  });

  it("typing goes to the thread", async () => {
    const c = await conversation();
    await t.port.send(c.reply("", { command: "typing" }), { wantAck: true });
    expect(t.fake.callsOf("triggerTypingIndicator").map((call) => [call.params["channel.id"], call.status])).toEqual([[c.thread, 204]]);
  });

  it("a 429 is rate_limited with the fake's retry_after in ms, not retried by the client", async () => {
    const c = await conversation();
    t.fake.failNext("createMessage", { status: 429, retryAfter: 1.337 });
    const error = await refused(t.port.send(c.reply("too fast", { reply_to: "" }), { wantAck: true }));
    expect([error.code, error.retryAfterMs]).toEqual(["rate_limited", 1337]);
    expect(t.fake.callsOf("createMessage").map((call) => call.status)).toEqual([429]);
  });

  it("a 4xx is rejected with Discord's code, a 5xx unknown (never sent again), a bad id rejected without a call", async () => {
    const c = await conversation();
    t.fake.failNext("createMessage", { status: 403, code: 50013, message: "Missing Permissions" });
    const forbidden = await refused(t.port.send(c.reply("no", { reply_to: "" }), { wantAck: true }));
    expect(forbidden.code).toBe("rejected");
    expect(forbidden.message).toContain("50013");
    t.fake.failNext("createMessage", { status: 502, code: 0, message: "Bad Gateway" });
    const lost = await refused(t.port.send(c.reply("maybe", { reply_to: "" }), { wantAck: true }));
    expect(lost.code).toBe("unknown");
    expect(t.fake.callsOf("createMessage").filter((call) => call.status === 502)).toHaveLength(1);
    expect((await refused(t.port.send(c.reply("x", { command: "edit_message", reply_to: "not-an-id" }), { wantAck: true }))).code).toBe("rejected");
    expect(t.logs.find((line) => line.msg === "discord refused a reply")).toMatchObject({ reason: "rejected", route: "createMessage", status: 403, code: 50013 });
  });

  it("sends work without the gateway (an edge standing by), and a closed port is disconnected", async () => {
    const guild = someGuild(t.fake);
    const port = await t.open({}, { start: false });
    await port.prepare();
    port.start({ receive: false });
    await until(() => port.isConnected);
    expect(t.fake.gateway.liveSessions).toBe(0);
    const sent = await port.send({ reply_to: "", platform: "discord", channel: { id: guild.general.id }, content: { type: "text", text: "from the standby" } }, { wantAck: true });
    expect(t.fake.botTexts(guild.general.id)).toEqual(["from the standby"]);
    expect(sent.messageId).toMatch(/^\d+$/);
    await port.close();
    expect((await refused(port.send({ reply_to: "", platform: "discord", channel: { id: guild.general.id }, content: { type: "text", text: "late" } }, { wantAck: true }))).code).toBe("disconnected");
  });

  it("capabilities: 2000 characters, edits, reactions, typing", async () => {
    const port = await t.open({}, { start: false });
    expect(port.messageLimit("discord")).toBe(2000);
    expect(port.capabilities("discord")).toMatchObject({ messageLimit: 2000, canEdit: true, supportsReactions: true, typingIndicator: true, streamingMode: "edit" });
    expect(port.capabilities("slack")).toBeUndefined();
  });
});
