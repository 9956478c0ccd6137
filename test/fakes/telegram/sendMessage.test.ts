import { describe, expect, it } from "vitest";
import { refusal, someChats, useFakeBotApi } from "./fakeBotApiFixture.js";

describe("fake Bot API: sendMessage checks what Telegram checks", () => {
  const fake = useFakeBotApi();

  it("sends to a chat by id or by a public chat's @username, and the chat shows it", async () => {
    const { dm, supergroup } = someChats(fake.api);
    const sent = await fake.client.sendMessage(dm.id, "hello");
    expect(sent).toMatchObject({ chat: { id: dm.id, type: "private" }, from: { is_bot: true }, text: "hello" });
    await fake.client.sendMessage("@turnstream_sg", "hi group");
    expect(fake.api.botTexts(dm.id)).toEqual(["hello"]);
    expect(fake.api.botTexts(supergroup.id)).toEqual(["hi group"]);
  });

  it("refuses a chat it does not know, and a missing chat_id", async () => {
    someChats(fake.api);
    expect((await refusal(fake.client.sendMessage(999, "x"))).description).toBe("Bad Request: chat not found");
    expect((await refusal(fake.client.sendMessage("@nobody_here", "x"))).description).toBe("Bad Request: chat not found");
    expect((await refusal(fake.client.raw.sendMessage({ text: "x" } as never))).description).toBe("Bad Request: chat_id is empty");
  });

  it("refuses empty and blank text, and text over 4096 characters after parsing and trimming", async () => {
    const { dm } = someChats(fake.api);
    expect((await refusal(fake.client.sendMessage(dm.id, ""))).description).toBe("Bad Request: message text is empty");
    expect((await refusal(fake.client.sendMessage(dm.id, " \n "))).description).toBe("Bad Request: text must be non-empty");
    expect((await refusal(fake.client.sendMessage(dm.id, "a".repeat(4097)))).description).toBe("Bad Request: message is too long");
    await expect(fake.client.sendMessage(dm.id, "a".repeat(4096))).resolves.toMatchObject({ text: "a".repeat(4096) });
    // Characters, not UTF-16 units: 4096 emoji (8192 units) fit; markers and trimmed space do not count.
    await expect(fake.client.sendMessage(dm.id, "😀".repeat(4096))).resolves.toBeDefined();
    await expect(fake.client.sendMessage(dm.id, `  *${"b".repeat(4096)}*  `, { parse_mode: "Markdown" })).resolves.toMatchObject({
      entities: [{ type: "bold", offset: 0, length: 4096 }],
    });
  });

  it("refuses legacy Markdown with an unclosed *, _, ` or [ as Telegram words it (byte offsets)", async () => {
    const { dm } = someChats(fake.api);
    for (const [text, offset] of [["*bold", 0], ["an _italic", 3], ["é `code", 3], ["see [link", 4]] as const) {
      const error = await refusal(fake.client.sendMessage(dm.id, text, { parse_mode: "Markdown" }));
      expect(error.error_code).toBe(400);
      expect(error.description).toBe(`Bad Request: can't parse entities: Can't find end of the entity starting at byte offset ${offset}`);
    }
    const sent = await fake.client.sendMessage(dm.id, "*b* _i_ `c` [t](https://example.org) \\*", { parse_mode: "Markdown" });
    expect(sent.text).toBe("b i c t *");
    expect(sent.entities?.map((entity) => entity.type)).toEqual(["bold", "italic", "code", "text_link"]);
  });

  it("refuses MarkdownV2 with an unescaped reserved character and HTML with an unknown tag; parse_mode outside the three", async () => {
    const { dm } = someChats(fake.api);
    expect((await refusal(fake.client.sendMessage(dm.id, "1. done", { parse_mode: "MarkdownV2" }))).description).toBe(
      "Bad Request: can't parse entities: Character '.' is reserved and must be escaped with the preceding '\\'",
    );
    expect((await refusal(fake.client.sendMessage(dm.id, "<blink>x</blink>", { parse_mode: "HTML" }))).description).toBe(
      'Bad Request: can\'t parse entities: Unsupported start tag "blink" at byte offset 0',
    );
    expect((await refusal(fake.client.sendMessage(dm.id, "x", { parse_mode: "RTF" as never }))).description).toBe("Bad Request: unsupported parse_mode");
    await expect(fake.client.sendMessage(dm.id, "1\\. *done*", { parse_mode: "MarkdownV2" })).resolves.toMatchObject({ text: "1. done" });
    await expect(fake.client.sendMessage(dm.id, "<b>a &amp; b</b>", { parse_mode: "HTML" })).resolves.toMatchObject({ text: "a & b" });
  });

  it("refuses message_thread_id outside a forum and a topic a forum lacks; in a topic the message carries it", async () => {
    const { dm, group, supergroup, forum, topic } = someChats(fake.api);
    for (const chat of [dm.id, group.id, supergroup.id]) {
      expect((await refusal(fake.client.sendMessage(chat, "x", { message_thread_id: 5 }))).description).toBe("Bad Request: message thread not found");
    }
    expect((await refusal(fake.client.sendMessage(forum.id, "x", { message_thread_id: topic.message_thread_id + 50 }))).description).toBe(
      "Bad Request: message thread not found",
    );
    const sent = await fake.client.sendMessage(forum.id, "in the topic", { message_thread_id: topic.message_thread_id });
    expect(sent).toMatchObject({ message_thread_id: topic.message_thread_id, is_topic_message: true });
    expect(fake.api.botTexts(forum.id, { thread: topic.message_thread_id })).toEqual(["in the topic"]);
  });

  it("replies with reply_parameters; a missing message is refused unless allow_sending_without_reply", async () => {
    const { alice, dm } = someChats(fake.api);
    const asked = fake.api.from(alice).text(dm.id, "question?").message!;
    const answer = await fake.client.sendMessage(dm.id, "answer", { reply_parameters: { message_id: asked.message_id } });
    expect(answer.reply_to_message).toMatchObject({ message_id: asked.message_id, text: "question?" });
    expect((await refusal(fake.client.sendMessage(dm.id, "x", { reply_parameters: { message_id: 4242 } }))).description).toBe(
      "Bad Request: message to be replied not found",
    );
    const unanchored = await fake.client.sendMessage(dm.id, "x", { reply_parameters: { message_id: 4242, allow_sending_without_reply: true } });
    expect(unanchored.reply_to_message).toBeUndefined();
    // An empty object is no reply at all, as Telegram reads it.
    await expect(fake.client.sendMessage(dm.id, "x", { reply_parameters: {} as never })).resolves.not.toHaveProperty("reply_to_message");
  });

  it("a reply to a message in a forum topic lands in that topic", async () => {
    const { alice, forum, topic } = someChats(fake.api);
    const asked = fake.api.from(alice).text(forum.id, "in topic", { threadId: topic.message_thread_id }).message!;
    const answer = await fake.client.sendMessage(forum.id, "reply", { reply_parameters: { message_id: asked.message_id } });
    expect(answer.message_thread_id).toBe(topic.message_thread_id);
  });

  it("checks reply_parameters' and link_preview_options' field types", async () => {
    const { dm } = someChats(fake.api);
    expect((await refusal(fake.client.sendMessage(dm.id, "x", { reply_parameters: { message_id: "one" as never } }))).description).toBe(
      'Bad Request: field "message_id" must be a Number',
    );
    expect((await refusal(fake.client.sendMessage(dm.id, "x", { link_preview_options: { is_disabled: "yes" as never } }))).description).toBe(
      'Bad Request: field "is_disabled" must be of type Boolean',
    );
    await expect(fake.client.sendMessage(dm.id, "https://example.org", { link_preview_options: { is_disabled: true } })).resolves.toMatchObject({
      link_preview_options: { is_disabled: true },
    });
  });

  it("checks inline keyboards: a button needs exactly an action, callback_data is 1–64 bytes, URLs are URLs", async () => {
    const { dm } = someChats(fake.api);
    const keyboard = (button: object) => ({ reply_markup: { inline_keyboard: [[button as never]] } });
    expect((await refusal(fake.client.sendMessage(dm.id, "x", keyboard({ text: "just text" })))).description).toBe(
      "Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard",
    );
    expect((await refusal(fake.client.sendMessage(dm.id, "x", keyboard({ text: "big", callback_data: "d".repeat(65) })))).description).toBe(
      "Bad Request: BUTTON_DATA_INVALID",
    );
    expect((await refusal(fake.client.sendMessage(dm.id, "x", keyboard({ text: "u", url: "not a url" })))).description).toBe("Bad Request: BUTTON_URL_INVALID");
    expect((await refusal(fake.client.sendMessage(dm.id, "x", { reply_markup: { inline_keyboard: [{ text: "flat" }] } as never }))).description).toBe(
      'Bad Request: field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays',
    );
    const sent = await fake.client.sendMessage(dm.id, "pick", keyboard({ text: "Yes", callback_data: "d".repeat(64) }));
    expect(sent.reply_markup?.inline_keyboard[0]?.[0]).toEqual({ text: "Yes", callback_data: "d".repeat(64) });
  });

  it("refuses a parameter of the wrong type (stricter than Telegram, which reads it as 0)", async () => {
    const { dm } = someChats(fake.api);
    expect((await refusal(fake.client.raw.sendMessage({ chat_id: dm.id, text: "x", message_thread_id: "seven" as never }))).description).toBe(
      'Bad Request: parameter "message_thread_id" must be an Integer',
    );
    expect((await refusal(fake.client.raw.sendMessage({ chat_id: dm.id, text: "x", disable_notification: "maybe" as never }))).description).toBe(
      'Bad Request: parameter "disable_notification" must be a Boolean',
    );
  });
});
