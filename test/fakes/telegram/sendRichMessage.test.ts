import { describe, expect, it } from "vitest";
import { refusal, someChats, useFakeBotApi } from "./fakeBotApiFixture.js";

describe("fake Bot API: sendRichMessage checks what Telegram checks", () => {
  const fake = useFakeBotApi();

  it("sends Markdown as a rich message: the message has rich_message and no text; the chat shows the source, marked rich", async () => {
    const { dm } = someChats(fake.api);
    const sent = await fake.client.sendRichMessage(dm.id, { markdown: "# Plan\n\n| a | b |\n|---|---|" });
    expect(sent).toMatchObject({ chat: { id: dm.id }, from: { is_bot: true }, rich_message: { blocks: [{ type: "paragraph" }] } });
    expect(sent).not.toHaveProperty("text");
    expect(fake.api.shown(dm.id)).toMatchObject([{ message_id: sent.message_id, text: "# Plan\n\n| a | b |\n|---|---|", rich: true, from_bot: true }]);
    expect(fake.api.botTexts(dm.id)).toEqual(["# Plan\n\n| a | b |\n|---|---|"]);
    await fake.client.sendMessage(dm.id, "plain");
    expect(fake.api.shown(dm.id).map((shown) => shown.rich)).toEqual([true, false]);
  });

  it("takes html and blocks too, exactly one of the three", async () => {
    const { dm } = someChats(fake.api);
    await expect(fake.client.sendRichMessage(dm.id, { html: "<h1>Plan</h1>" })).resolves.toHaveProperty("rich_message");
    const blocks = [{ type: "heading" as const, text: "Plan", size: 1 as const }];
    await expect(fake.client.sendRichMessage(dm.id, { blocks })).resolves.toMatchObject({ rich_message: { blocks } });
    const two = await refusal(fake.client.sendRichMessage(dm.id, { markdown: "# a", html: "<b>a</b>" }));
    expect(two.description).toBe("Bad Request: can't parse InputRichMessage: exactly one of html, markdown and blocks must be specified, not html and markdown");
    expect(fake.api.shown(dm.id)).toHaveLength(2);
  });

  it("refuses a missing, empty, blank or over-long rich message in Telegram's words", async () => {
    const { dm } = someChats(fake.api);
    const empty = "Bad Request: rich message must be non-empty";
    expect((await refusal(fake.client.raw.sendRichMessage({ chat_id: dm.id } as never))).description).toBe(empty);
    expect((await refusal(fake.client.sendRichMessage(dm.id, {}))).description).toBe(empty);
    expect((await refusal(fake.client.sendRichMessage(dm.id, { markdown: "" }))).description).toBe(empty);
    expect((await refusal(fake.client.sendRichMessage(dm.id, { markdown: " \n " }))).description).toBe(empty);
    expect((await refusal(fake.client.sendRichMessage(dm.id, { blocks: [] }))).description).toBe(empty);
    // 32768 characters, not bytes or UTF-16 units: as many emoji fit.
    expect((await refusal(fake.client.sendRichMessage(dm.id, { markdown: "a".repeat(32_769) }))).description).toBe("Bad Request: RICH_MESSAGE_TEXT_TOO_LONG");
    await expect(fake.client.sendRichMessage(dm.id, { markdown: "😀".repeat(32_768) })).resolves.toHaveProperty("rich_message");
    expect(fake.api.callsOf("sendRichMessage").map((call) => call.status)).toEqual([400, 400, 400, 400, 400, 400, 200]);
  });

  it("refuses a rich_message that is no JSON object, a field of the wrong type and an unknown field", async () => {
    const { dm } = someChats(fake.api);
    const raw = (rich_message: unknown) => refusal(fake.client.raw.sendRichMessage({ chat_id: dm.id, rich_message } as never));
    expect((await raw("{not json")).description).toBe("Bad Request: can't parse rich message JSON object");
    expect((await raw(["# a"])).description).toBe("Bad Request: object expected as rich message");
    expect((await raw({ markdown: { text: "# a" } })).description).toBe('Bad Request: can\'t parse InputRichMessage: Field "markdown" must be of type String');
    expect((await raw({ markdown: "# a", is_rtl: "yes" })).description).toBe('Bad Request: can\'t parse InputRichMessage: Field "is_rtl" must be of type Boolean');
    expect((await raw({ text: "# a" })).description).toBe('Bad Request: can\'t parse InputRichMessage: unknown field "text"');
  });

  it("refuses an unknown chat, and message_thread_id outside a forum, as sendMessage does", async () => {
    const { dm, group, forum, topic } = someChats(fake.api);
    expect((await refusal(fake.client.sendRichMessage(999, { markdown: "# a" }))).description).toBe("Bad Request: chat not found");
    for (const chat of [dm.id, group.id]) {
      expect((await refusal(fake.client.sendRichMessage(chat, { markdown: "# a" }, { message_thread_id: 5 }))).description).toBe("Bad Request: message thread not found");
    }
    const sent = await fake.client.sendRichMessage(forum.id, { markdown: "# in the topic" }, { message_thread_id: topic.message_thread_id });
    expect(sent).toMatchObject({ message_thread_id: topic.message_thread_id, is_topic_message: true });
    expect(fake.api.shown(forum.id, { thread: topic.message_thread_id }).at(-1)).toMatchObject({ text: "# in the topic", rich: true });
  });

  it("replies with reply_parameters; a missing message is refused unless allow_sending_without_reply", async () => {
    const { alice, dm } = someChats(fake.api);
    const asked = fake.api.from(alice).text(dm.id, "plan?").message!;
    const answer = await fake.client.sendRichMessage(dm.id, { markdown: "# Plan" }, { reply_parameters: { message_id: asked.message_id } });
    expect(answer.reply_to_message).toMatchObject({ message_id: asked.message_id, text: "plan?" });
    expect(fake.api.shown(dm.id).at(-1)).toMatchObject({ reply_to_message_id: asked.message_id, rich: true });
    expect((await refusal(fake.client.sendRichMessage(dm.id, { markdown: "# a" }, { reply_parameters: { message_id: 4242 } }))).description).toBe(
      "Bad Request: message to be replied not found",
    );
    await expect(fake.client.sendRichMessage(dm.id, { markdown: "# a" }, { reply_parameters: { message_id: 4242, allow_sending_without_reply: true } })).resolves.not.toHaveProperty(
      "reply_to_message",
    );
  });

  it("a rich message has no text to edit with editMessageText", async () => {
    const { dm } = someChats(fake.api);
    const sent = await fake.client.sendRichMessage(dm.id, { markdown: "# Plan" });
    expect((await refusal(fake.client.editMessageText(dm.id, sent.message_id, "plain now"))).description).toBe("Bad Request: there is no text in the message to edit");
  });
});
