import { afterEach, describe, expect, it } from "vitest";
import { TelegramPort, type TelegramPortOptions } from "../../../src/platforms/telegram/index.js";
import { SKIPPED_MESSAGE_ID } from "../../../src/wire/index.js";
import { captureLogs } from "../../helpers/logCapture.js";
import { someChats, until, useFakeBotApi } from "../../fakes/telegram/fakeBotApiFixture.js";
import { refusedWith, reply } from "./replyFixtures.js";
import { telegramConfig } from "./telegramTestConfig.js";

// TelegramPort.send against the fake Bot API over HTTP: each reply operation as the Bot API call
// OpenAB's gateway makes of it, and each refusal as the SendError the gateway's ack would name.

const fake = useFakeBotApi();
const ports: TelegramPort[] = [];
afterEach(async () => {
  await Promise.all(ports.splice(0).map((port) => port.close()));
});

function portOf(options: Partial<TelegramPortOptions> = {}) {
  const { logger, records } = captureLogs();
  const port = new TelegramPort({ config: telegramConfig(fake.api), logger, ...options });
  ports.push(port);
  return { port, records };
}

describe("TelegramPort.send: messages", () => {
  it("sends with parse_mode Markdown and answers with Telegram's message id", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    const receipt = await port.send(reply(dm.id, "*done*: see `notes.md`"));
    const [call] = fake.api.callsOf("sendMessage");
    expect(call?.params).toMatchObject({ chat_id: dm.id, text: "*done*: see `notes.md`", parse_mode: "Markdown" });
    const [shown] = fake.api.shown(dm.id);
    expect(receipt).toEqual({ messageId: String(shown?.message_id) });
    expect(shown?.text).toBe("done: see notes.md");
    expect(shown?.message.entities?.map((entity) => entity.type)).toEqual(["bold", "code"]);
  });

  it("sends again as plain text when Telegram cannot parse the Markdown, logged at debug", async () => {
    const { dm } = someChats(fake.api);
    const { port, records } = portOf();
    fake.api.failNext("sendMessage", { error_code: 400, description: "Bad Request: can't parse entities: Can't find end of the entity starting at byte offset 0" });
    const receipt = await port.send(reply(dm.id, "*done*"));
    expect(fake.api.callsOf("sendMessage").map((call) => [call.params.parse_mode, call.status])).toEqual([
      ["Markdown", 400],
      [undefined, 200],
    ]);
    expect(fake.api.botTexts(dm.id)).toEqual(["*done*"]);
    expect(receipt.messageId).toBe(String(fake.api.shown(dm.id)[0]?.message_id));
    expect(records.filter((r) => r.reason === "markdown_parse_error")).toMatchObject([{ level: 20 }]);
  });

  it("a text that is no legacy Markdown (an unclosed *) reaches the chat as written, never refused in the end", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    const receipt = await port.send(reply(dm.id, "2 * 3 = 6"));
    expect(fake.api.botTexts(dm.id)).toEqual(["2 * 3 = 6"]);
    expect(receipt.messageId).toBe(String(fake.api.shown(dm.id)[0]?.message_id));
    const last = fake.api.callsOf("sendMessage").at(-1);
    expect([last?.ok, last?.params.parse_mode]).toEqual([true, undefined]);
  });

  it("quotes the message quote_message_id names with reply_parameters, and still sends when it is gone", async () => {
    const { alice, dm } = someChats(fake.api);
    const { port } = portOf();
    const asked = fake.api.from(alice).text(dm.id, "what is 2+2?").message!;
    await port.send(reply(dm.id, "4", { quote: String(asked.message_id) }));
    expect(fake.api.callsOf("sendMessage")[0]?.params.reply_parameters).toEqual({ message_id: asked.message_id, allow_sending_without_reply: true });
    expect(fake.api.shown(dm.id).at(-1)).toMatchObject({ text: "4", reply_to_message_id: asked.message_id });
    await port.send(reply(dm.id, "still here", { quote: "999" }));
    expect(fake.api.shown(dm.id).at(-1)).toMatchObject({ text: "still here", reply_to_message_id: undefined });
  });

  it("a quote_message_id that is no Telegram message id sends the reply unquoted", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    await port.send(reply(dm.id, "plain", { quote: "msg_abc" }));
    expect(fake.api.callsOf("sendMessage")[0]?.params).not.toHaveProperty("reply_parameters");
    expect(fake.api.botTexts(dm.id)).toEqual(["plain"]);
  });

  it("sends into a forum topic with message_thread_id", async () => {
    const { forum, topic } = someChats(fake.api);
    const { port } = portOf();
    await port.send(reply(forum.id, "in the topic", { thread: topic.message_thread_id }));
    expect(fake.api.callsOf("sendMessage")[0]?.params.message_thread_id).toBe(topic.message_thread_id);
    expect(fake.api.botTexts(forum.id, { thread: topic.message_thread_id })).toEqual(["in the topic"]);
  });

  it("a thread_id that is no topic id is rejected without a call, never sent to the chat's main thread", async () => {
    const { forum } = someChats(fake.api);
    const { port } = portOf();
    for (const thread of ["general", "", "0", "-3", "2.5"]) {
      const message = { ...reply(forum.id, "lost?"), channel: { id: String(forum.id), thread_id: thread } };
      expect((await refusedWith(port.send(message))).code).toBe("rejected");
      expect((await refusedWith(port.send({ ...message, command: "typing" }))).code).toBe("rejected");
    }
    expect(fake.api.calls).toEqual([]);
  });
});

describe("TelegramPort.send: edits and deletes", () => {
  it("edits with editMessageText in Markdown; the same text again ('message is not modified') is success", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    const { messageId } = await port.send(reply(dm.id, "draft"));
    await expect(port.send(reply(dm.id, "*final*", { command: "edit_message", reply_to: messageId }))).resolves.toEqual({ messageId });
    expect(fake.api.callsOf("editMessageText")[0]?.params).toMatchObject({ chat_id: dm.id, message_id: Number(messageId), text: "*final*", parse_mode: "Markdown" });
    await expect(port.send(reply(dm.id, "*final*", { command: "edit_message", reply_to: messageId }))).resolves.toEqual({ messageId });
    expect(fake.api.callsOf("editMessageText").at(-1)?.description).toContain("message is not modified");
    expect(fake.api.shown(dm.id)).toMatchObject([{ text: "final", edits: 1 }]);
  });

  it("an edit whose Markdown does not parse is made as plain text", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    const { messageId } = await port.send(reply(dm.id, "draft"));
    await port.send(reply(dm.id, "snake_case names", { command: "edit_message", reply_to: messageId }));
    expect(fake.api.botTexts(dm.id)).toEqual(["snake_case names"]);
    const last = fake.api.callsOf("editMessageText").at(-1);
    expect([last?.ok, last?.params.parse_mode]).toEqual([true, undefined]);
    // Telegram refusing an edit's Markdown: made again as plain text.
    fake.api.failNext("editMessageText", { error_code: 400, description: "Bad Request: can't parse entities: Can't find end of the entity starting at byte offset 0" });
    await port.send(reply(dm.id, "*final*", { command: "edit_message", reply_to: messageId }));
    expect(fake.api.callsOf("editMessageText").slice(-2).map((call) => [call.params.parse_mode, call.status])).toEqual([
      ["Markdown", 400],
      [undefined, 200],
    ]);
    expect(fake.api.botTexts(dm.id)).toEqual(["*final*"]);
  });

  it("deletes with deleteMessage; a message already gone is rejected", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    const { messageId } = await port.send(reply(dm.id, "placeholder"));
    await expect(port.send(reply(dm.id, "", { command: "delete_message", reply_to: messageId }))).resolves.toEqual({ messageId });
    expect(fake.api.shown(dm.id)).toEqual([]);
    const error = await refusedWith(port.send(reply(dm.id, "", { command: "delete_message", reply_to: messageId })));
    expect(error.code).toBe("rejected");
    expect(error.message).toBe("Telegram refused deleteMessage (400): Bad Request: message to delete not found");
  });

  it("a reply_to that is no Telegram message id is rejected without a call", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    for (const command of ["edit_message", "delete_message", "add_reaction", "remove_reaction"] as const) {
      for (const target of ["tg17", "", "0", "-5", "1.5", "99999999999999999999"]) {
        const error = await refusedWith(port.send(reply(dm.id, "👀", { command, reply_to: target })));
        expect(error.code).toBe("rejected");
      }
    }
    expect(fake.api.calls).toEqual([]);
  });
});

describe("TelegramPort.send: reactions", () => {
  it("sets the bot's one reaction with setMessageReaction; 🆗 shows as 👍; a remove of the one shown clears it", async () => {
    const { alice, dm } = someChats(fake.api);
    const { port } = portOf();
    const target = String(fake.api.from(alice).text(dm.id, "hi").message!.message_id);
    const react = (command: "add_reaction" | "remove_reaction", emoji: string) => port.send(reply(dm.id, emoji, { command, reply_to: target }));
    await expect(react("add_reaction", "👀")).resolves.toEqual({ messageId: target });
    expect(fake.api.shown(dm.id)[0]?.reactions).toEqual(["👀"]);
    // The status machine adds the next emoji, then removes the last: the remove changes nothing.
    await react("add_reaction", "🤔");
    await expect(react("remove_reaction", "👀")).resolves.toEqual({ messageId: SKIPPED_MESSAGE_ID });
    expect(fake.api.shown(dm.id)[0]?.reactions).toEqual(["🤔"]);
    await react("add_reaction", "🆗");
    expect(fake.api.shown(dm.id)[0]?.reactions).toEqual(["👍"]);
    await react("remove_reaction", "🆗");
    expect(fake.api.shown(dm.id)[0]?.reactions).toEqual([]);
    expect(fake.api.callsOf("setMessageReaction").map((call) => call.params.reaction)).toEqual([[{ type: "emoji", emoji: "👀" }], [{ type: "emoji", emoji: "🤔" }], [{ type: "emoji", emoji: "👍" }], []]);
    expect(fake.api.callsOf("setMessageReaction").every((call) => call.ok)).toBe(true);
  });

  it("an emoji Telegram does not take makes no call, and is logged once; a mood face makes none and is not logged (skipped by design)", async () => {
    const { alice, dm } = someChats(fake.api);
    const { port, records } = portOf();
    const target = String(fake.api.from(alice).text(dm.id, "hi").message!.message_id);
    for (const emoji of ["✅", "✅", "🚀", "😊"]) {
      await expect(port.send(reply(dm.id, emoji, { command: "add_reaction", reply_to: target }))).resolves.toEqual({ messageId: SKIPPED_MESSAGE_ID });
    }
    await expect(port.send(reply(dm.id, "✅", { command: "remove_reaction", reply_to: target }))).resolves.toEqual({ messageId: SKIPPED_MESSAGE_ID });
    expect(fake.api.callsOf("setMessageReaction")).toEqual([]);
    expect(records.filter((r) => r.reason === "reaction_unmapped").map((r) => r.emoji)).toEqual(["✅", "🚀"]);
  });

  it("the same reaction again makes no second call", async () => {
    const { alice, dm } = someChats(fake.api);
    const { port } = portOf();
    const target = String(fake.api.from(alice).text(dm.id, "hi").message!.message_id);
    await port.send(reply(dm.id, "🔥", { command: "add_reaction", reply_to: target }));
    await port.send(reply(dm.id, "🔥", { command: "add_reaction", reply_to: target }));
    expect(fake.api.callsOf("setMessageReaction")).toHaveLength(1);
  });
});

describe("TelegramPort.send: topics and typing", () => {
  it("create_topic is createForumTopic, answered with the topic's thread id, where the next reply goes", async () => {
    const { forum } = someChats(fake.api);
    const { port } = portOf();
    const { messageId: thread } = await port.send(reply(forum.id, "Deploy the docs", { command: "create_topic" }));
    expect(fake.api.callsOf("createForumTopic")[0]?.params).toMatchObject({ chat_id: forum.id, name: "Deploy the docs" });
    expect(fake.api.chats.record(forum.id)?.topics.get(Number(thread))?.name).toBe("Deploy the docs");
    await port.send(reply(forum.id, "on it", { thread: Number(thread) }));
    // The topic's first message is Telegram's service message (no text), then the reply.
    expect(fake.api.botTexts(forum.id, { thread: Number(thread) })).toEqual([undefined, "on it"]);
  });

  it("create_topic where the chat is no forum is rejected with Telegram's words", async () => {
    const { supergroup } = someChats(fake.api);
    const { port } = portOf();
    const error = await refusedWith(port.send(reply(supergroup.id, "Topic", { command: "create_topic" })));
    expect(error.code).toBe("rejected");
    expect(error.message).toBe("Telegram refused createForumTopic (400): Bad Request: the chat is not a forum");
  });

  it("create_topic for a message (a cron job's post) opens no topic: \"\", the conversation stays in the chat", async () => {
    const { forum } = someChats(fake.api);
    const { port } = portOf();
    await expect(port.send(reply(forum.id, "digest", { command: "create_topic", quote: "17" }))).resolves.toEqual({ messageId: "" });
    expect(fake.api.callsOf("createForumTopic")).toEqual([]);
  });

  it("typing is sendChatAction 'typing', in the topic when there is one", async () => {
    const { dm, forum, topic } = someChats(fake.api);
    const { port } = portOf();
    await expect(port.send(reply(dm.id, "", { command: "typing" }))).resolves.toEqual({ messageId: "tg_done" });
    await port.send(reply(forum.id, "", { command: "typing", thread: topic.message_thread_id }));
    expect(fake.api.callsOf("sendChatAction").map((call) => call.params)).toEqual([
      { chat_id: dm.id, action: "typing" },
      { chat_id: forum.id, action: "typing", message_thread_id: topic.message_thread_id },
    ]);
    expect(fake.api.callsOf("sendChatAction").every((call) => call.ok)).toBe(true);
  });
});

describe("TelegramPort.send: refusals as the gateway's acks name them", () => {
  it("429 is rate_limited with retryAfterMs from retry_after (ms), logged with Telegram's status", async () => {
    const { dm } = someChats(fake.api);
    const { port, records } = portOf();
    fake.api.failNext("sendMessage", { error_code: 429, retry_after: 3 });
    const error = await refusedWith(port.send(reply(dm.id, "hi")));
    expect(error).toMatchObject({ code: "rate_limited", retryAfterMs: 3_000 });
    expect(records.filter((r) => r.msg === "telegram refused a reply")).toMatchObject([{ reason: "rate_limited", method: "sendMessage", status: 429 }]);
    // Not sent again by the port: the sender waits it out and sends once more.
    expect(fake.api.callsOf("sendMessage")).toHaveLength(1);
  });

  it("a 429 on the plain-text retry is rate_limited too", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    fake.api.failNext("sendMessage", { error_code: 400, description: "Bad Request: can't parse entities: Can't find end of the entity starting at byte offset 0" });
    fake.api.failNext("sendMessage", { error_code: 429, retry_after: 1 });
    expect(await refusedWith(port.send(reply(dm.id, "hi")))).toMatchObject({ code: "rate_limited", retryAfterMs: 1_000 });
  });

  it("a bot blocked by the user (403) and a chat that is not found (400) are rejected, never retried", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    fake.api.failNext("sendMessage", { error_code: 403, description: "Forbidden: bot was blocked by the user" });
    const blocked = await refusedWith(port.send(reply(dm.id, "hi")));
    expect(blocked).toMatchObject({ code: "rejected", retryAfterMs: undefined });
    expect(blocked.message).toBe("Telegram refused sendMessage (403): Forbidden: bot was blocked by the user");
    const missing = await refusedWith(port.send(reply(-4242, "hi")));
    expect(missing.code).toBe("rejected");
    expect(missing.message).toBe("Telegram refused sendMessage (400): Bad Request: chat not found");
    expect(await refusedWith(port.send(reply(dm.id, "", { command: "typing", thread: 77 })))).toMatchObject({ code: "rejected" });
  });

  it("a 5xx is unknown: the message may be in the chat", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    fake.api.failNext("sendMessage", { error_code: 502, description: "Bad Gateway" });
    expect((await refusedWith(port.send(reply(dm.id, "hi")))).code).toBe("unknown");
  });

  it("a call that outlives its timeout is unknown", async () => {
    const { dm } = someChats(fake.api);
    const { port, records } = portOf({ replyTimeoutMs: 200 });
    fake.api.delay("sendMessage", 2_000);
    const error = await refusedWith(port.send(reply(dm.id, "hi")));
    expect(error.code).toBe("unknown");
    expect(records.find((r) => r.msg === "telegram refused a reply")).toMatchObject({ reason: "unknown", method: "sendMessage", code: "aborted" });
  });

  it("a connection cut after the request left is unknown; one that never opened is disconnected", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    fake.api.delay("sendMessage", 5_000);
    const sending = port.send(reply(dm.id, "hi"));
    await until(() => fake.api.callsOf("sendMessage").length === 1);
    await fake.api.close();
    expect((await refusedWith(sending)).code).toBe("unknown");
    expect((await refusedWith(port.send(reply(dm.id, "again")))).code).toBe("disconnected");
  });
});
