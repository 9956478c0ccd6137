import { describe, expect, it } from "vitest";
import { sessionKey } from "../../../operators/dispatch/sessionKey.js";
import { SlackTokenRejectedError } from "../../../src/platforms/slack/index.js";
import { someConversations, until, useFakeSlack } from "../../fakes/slack/slackFixture.js";
import { logged, useSlackPorts } from "./slackTestConfig.js";

// The Slack port against the fake Slack (Web API + Socket Mode) in this process: start-up and
// upstream's rules for incoming events. Replies: slackReplies.test.ts; the socket's receiver:
// slackReceiver.test.ts.

const slack = useFakeSlack();
const portOf = useSlackPorts(() => slack.fake);

/** A port that knows the bot and holds the socket. */
async function receiving(...args: Parameters<typeof portOf>) {
  const made = portOf(...args);
  await made.port.prepare();
  made.port.start();
  await until(() => made.port.isConnected);
  return made;
}

/** Waits until every envelope the fake sent was acknowledged (the adapter acks each at once). */
async function allAcked(count: number): Promise<void> {
  await until(() => slack.fake.socket.sent.length >= count && slack.fake.socket.unacked().length === 0);
}

describe("SlackPort: start-up", () => {
  it("learns the bot's user id from auth.test", async () => {
    const { port } = portOf();
    await port.prepare();
    expect(port.botUserId).toBe(slack.fake.bot.user.id);
    expect(port.receiver.key).toBe(`slack.${slack.fake.bot.appId}`);
    expect(port.messageLimit("slack")).toBe(4000);
    expect(port.capabilities("slack")).toMatchObject({ streamingMode: "edit", supportsReactions: true, canEdit: true, typingIndicator: false, statusBackend: "reactions" });
    expect(port.capabilities("telegram")).toBeUndefined();
    expect(port.ingress).toMatchObject({ allow_bot_messages: true, allow_all_channels: true, allow_all_users: true });
  });

  it("a token Slack refuses stops start-up with one line naming the key, never the token", async () => {
    slack.fake.revokeToken("bot");
    const { port } = portOf();
    const error = await port.prepare().then(() => undefined, (err: unknown) => err);
    expect(error).toBeInstanceOf(SlackTokenRejectedError);
    expect((error as SlackTokenRejectedError).lines()).toEqual(["slack.bot_token: rejected by Slack (token_revoked)"]);
    expect((error as Error).message).not.toContain(slack.fake.botToken);
  });
});

describe("SlackPort: events (§3.3–3.4)", () => {
  it("a mention at top level is one event in the thread under it; every envelope acked at once", async () => {
    const { fake } = slack;
    const { general, alice } = someConversations(fake);
    const { events } = await receiving();
    const said = fake.from(alice).message(general.id, "@turnstream what time is it?");
    const mention = said.events.find((each) => each.event.type === "app_mention")!;
    await until(() => events.length === 1);
    expect(events[0]).toEqual({
      schema: "openab.gateway.event.v1",
      event_id: mention.event_id,
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      platform: "slack",
      channel: { id: general.id, type: "channel", thread_id: said.ts },
      sender: { id: alice.id, name: "Ali", display_name: "Ali", is_bot: false },
      content: { type: "text", text: "what time is it?" },
      mentions: [],
      message_id: said.ts,
      proactive: false,
    });
    await allAcked(2);
    expect(Math.max(...fake.socket.ackLatencies())).toBeLessThan(1000);
    expect(events).toHaveLength(1);
  });

  it("a reply in that thread, once the bot answered there, is the same conversation; a thread it is not in is ignored", async () => {
    const { fake } = slack;
    const { general, alice, bob } = someConversations(fake);
    const { port, events, records } = await receiving();
    const said = fake.from(alice).message(general.id, "@turnstream hello");
    await until(() => events.length === 1);
    await port.send({ reply_to: events[0]!.event_id, platform: "slack", channel: { id: general.id, thread_id: said.ts }, content: { type: "text", text: "hi!" } });
    fake.from(bob).message(general.id, "and one more thing", { thread_ts: said.ts });
    await until(() => events.length === 2);
    expect(sessionKey(events[1]!)).toBe(sessionKey(events[0]!));
    expect(events[1]!.content.text).toBe("and one more thing");
    const elsewhere = fake.from(alice).message(general.id, "a thread without the bot");
    fake.from(bob).message(general.id, "chatter", { thread_ts: elsewhere.ts });
    await until(() => logged(records, "slack event skipped").some((record) => record.reason === "not_involved"));
    expect(events).toHaveLength(2);
    // The second reply there needs no fetch: the involved thread is remembered.
    const fetches = fake.callsOf("conversations.replies").length;
    fake.from(alice).message(general.id, "thanks", { thread_ts: said.ts });
    await until(() => events.length === 3);
    expect(fake.callsOf("conversations.replies")).toHaveLength(fetches);
  });

  it("a thread that cannot be read drops the reply (fail-closed), logged with Slack's error; a channel not allowed is silent", async () => {
    const { fake } = slack;
    const { general, secret, alice } = someConversations(fake);
    const { events, records } = await receiving({ allowed_channels: [general.id], allow_all_channels: false });
    const said = fake.from(alice).message(general.id, "a thread");
    fake.failNext("conversations.replies", { error: "internal_error" });
    fake.from(alice).message(general.id, "@turnstream-less reply", { thread_ts: said.ts });
    await until(() => logged(records, "slack event skipped").some((record) => record.reason === "thread_unreadable"));
    expect(logged(records, "slack thread not read; its message is dropped (fail-closed)")).toMatchObject([{ reason: "thread_unreadable", channel: general.id, error: "internal_error" }]);
    fake.from(alice).message(secret.id, "@turnstream in the wrong channel");
    await until(() => logged(records, "slack event skipped").some((record) => record.reason === "channel_not_allowed"));
    expect(events).toEqual([]);
    expect(fake.shown(secret.id).flatMap((message) => message.reactions)).toEqual([]);
  });

  it("a person outside allowed_users gets 🚫 (no_entry_sign) and no turn; unmentioned, nothing at all", async () => {
    const { fake } = slack;
    const { general, alice, bob } = someConversations(fake);
    const { events, records } = await receiving({ allowed_users: [alice.id], allow_all_users: false });
    const said = fake.from(bob).message(general.id, "@turnstream let me in");
    await until(() => fake.shown(general.id).find((message) => message.ts === said.ts)!.reactions.length > 0);
    expect(fake.shown(general.id).find((message) => message.ts === said.ts)!.reactions).toEqual(["no_entry_sign"]);
    expect(logged(records, "slack user not allowed; reacted 🚫")).toMatchObject([{ reason: "user_not_allowed", user_id: bob.id }]);
    fake.from(alice).message(general.id, "@turnstream I am allowed");
    await until(() => events.length === 1);
    expect(events.map((event) => event.sender.id)).toEqual([alice.id]);
  });

  it("a DM needs no mention; its answer goes into a thread under the message", async () => {
    const { fake } = slack;
    const { dm, alice } = someConversations(fake);
    const { events } = await receiving({ allow_user_messages: "mentions" });
    const said = fake.from(alice).message(dm.id, "hello there");
    await until(() => events.length === 1);
    expect(events[0]!.channel).toEqual({ id: dm.id, type: "dm", thread_id: said.ts });
  });

  it("a bot beyond max_bot_turns is ignored: the warning is posted once in the thread, later bot messages are silent", async () => {
    const { fake } = slack;
    const { general, alice, helper } = someConversations(fake);
    const { port, events, records } = await receiving({ allow_bot_messages: "all", max_bot_turns: 3 });
    const said = fake.from(alice).message(general.id, "@turnstream start");
    await until(() => events.length === 1);
    // The bot's own answer counts too (turn 1), as upstream counts every bot message.
    await port.send({ reply_to: "", platform: "slack", channel: { id: general.id, thread_id: said.ts }, content: { type: "text", text: "answer" } });
    await allAcked(3);
    fake.from(helper).message(general.id, "helper speaks (turn 2)", { thread_ts: said.ts });
    await until(() => events.length === 2);
    expect(events[1]!.sender).toMatchObject({ id: helper.user.id, is_bot: true });
    fake.from(helper).message(general.id, "helper again (turn 3)", { thread_ts: said.ts });
    await until(() => fake.botTexts(general.id, { thread: said.ts }).length === 2);
    expect(fake.botTexts(general.id, { thread: said.ts })[1]).toBe("⚠️ Bot turn limit reached (3/3). A human must reply in this thread to continue bot-to-bot conversation.");
    fake.from(helper).message(general.id, "helper ignored (turn 4)", { thread_ts: said.ts });
    await until(() => logged(records, "slack event skipped").filter((record) => record.reason === "bot_turn_limit").length >= 3);
    expect(events).toHaveLength(2);
    expect(fake.botTexts(general.id, { thread: said.ts })).toHaveLength(2);
    expect(logged(records, "slack bot turn limit reached")).toMatchObject([{ reason: "bot_turn_limit", limit: "soft", turns: 3 }]);
  });

  it("a retried envelope (the same event_id, a new envelope) makes one event", async () => {
    const { fake } = slack;
    const { general, alice } = someConversations(fake);
    const { events, records } = await receiving();
    const said = fake.from(alice).message(general.id, "@turnstream once");
    const mention = said.events.find((each) => each.event.type === "app_mention")!;
    await until(() => events.length === 1);
    fake.socket.deliver("events_api", { type: "event_callback", event_id: mention.event_id, event: mention.event }, { acceptsResponsePayload: false, eventId: mention.event_id });
    await until(() => logged(records, "slack event skipped").some((record) => record.reason === "redelivered"));
    await allAcked(3);
    expect(fake.socket.sent.filter((envelope) => envelope.event_id === mention.event_id)).toHaveLength(2);
    expect(events.map((event) => event.event_id)).toEqual([mention.event_id]);
  });

  it("a shared text file and a voice clip become attachments, fetched with the bot token", async () => {
    const { fake } = slack;
    const { dm, alice } = someConversations(fake);
    const { events } = await receiving();
    fake.from(alice).shareFile(dm.id, { name: "notes.md", mimetype: "text/markdown", bytes: "# notes\nhello" }, { text: "read this" });
    fake.from(alice).shareFile(dm.id, { name: "clip.m4a", mimetype: "audio/mp4", bytes: new Uint8Array([1, 2, 3]) });
    await until(() => events.length === 2);
    expect(events[0]!.content).toEqual({ type: "text", text: "read this", attachments: [{ type: "text_file", filename: "notes.md", mime_type: "text/markdown", size: 13, data: Buffer.from("# notes\nhello").toString("base64") }] });
    expect(events[1]!.content.attachments).toEqual([{ type: "audio", filename: "clip.m4a", mime_type: "audio/mp4", size: 3, data: "AQID" }]);
  });

  it("without [stt], a voice clip is not fetched: the agent gets a note and the message 🎤 (microphone)", async () => {
    const { fake } = slack;
    const { dm, alice } = someConversations(fake);
    const { events, records } = await receiving({}, { speechToText: false });
    const shared = fake.from(alice).shareFile(dm.id, { name: "clip.m4a", mimetype: "audio/mp4", bytes: new Uint8Array([1, 2, 3]) }, { text: "listen" });
    await until(() => events.length === 1);
    expect(events[0]!.content.attachments).toEqual([{ type: "audio", filename: "clip.m4a", mime_type: "audio/mp4", size: 3, data: "", status: "skipped: speech-to-text is not configured ([stt])" }]);
    expect(fake.shown(dm.id).find((message) => message.ts === shared.ts)!.reactions).toEqual(["microphone"]);
    expect(logged(records, "slack audio file not transcribed (no [stt])")).toMatchObject([{ reason: "stt_disabled" }]);
  });
});
