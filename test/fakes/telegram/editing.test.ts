import { describe, expect, it } from "vitest";
import { refusal, someChats, useFakeBotApi } from "./fakeBotApiFixture.js";

const NOT_MODIFIED =
  "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message";

describe("fake Bot API: editing and deleting the bot's messages", () => {
  const fake = useFakeBotApi();

  it("editMessageText changes what the chat shows; the same text and markup again is 'not modified'", async () => {
    const { dm } = someChats(fake.api);
    const sent = await fake.client.sendMessage(dm.id, "draft");
    const edited = await fake.client.editMessageText(dm.id, sent.message_id, "final");
    expect(edited).toMatchObject({ message_id: sent.message_id, text: "final", edit_date: expect.any(Number) });
    expect(fake.api.shown(dm.id)).toMatchObject([{ message_id: sent.message_id, text: "final", edits: 1 }]);
    const error = await refusal(fake.client.editMessageText(dm.id, sent.message_id, "final"));
    expect([error.error_code, error.description]).toEqual([400, NOT_MODIFIED]);
  });

  it("the same text with other entities or another keyboard is a change", async () => {
    const { dm } = someChats(fake.api);
    const sent = await fake.client.sendMessage(dm.id, "same");
    await expect(fake.client.editMessageText(dm.id, sent.message_id, "*same*", { parse_mode: "Markdown" })).resolves.toMatchObject({ text: "same" });
    const keyboard = { inline_keyboard: [[{ text: "ok", callback_data: "ok" }]] };
    await expect(fake.client.editMessageText(dm.id, sent.message_id, "*same*", { parse_mode: "Markdown", reply_markup: keyboard })).resolves.toMatchObject({
      reply_markup: keyboard,
    });
    expect((await refusal(fake.client.editMessageReplyMarkup(dm.id, sent.message_id, { reply_markup: keyboard }))).description).toBe(NOT_MODIFIED);
    const cleared = await fake.client.editMessageReplyMarkup(dm.id, sent.message_id);
    expect(cleared).not.toHaveProperty("reply_markup");
  });

  it("refuses to edit a message that is not there, not the bot's, or named by inline_message_id the bot never sent", async () => {
    const { alice, dm } = someChats(fake.api);
    const theirs = fake.api.from(alice).text(dm.id, "mine").message!;
    expect((await refusal(fake.client.editMessageText(dm.id, 999, "x"))).description).toBe("Bad Request: message to edit not found");
    expect((await refusal(fake.client.editMessageText(dm.id, theirs.message_id, "x"))).description).toBe("Bad Request: message can't be edited");
    expect((await refusal(fake.client.editMessageTextInline("AgAAAnope", "x"))).description).toBe("Bad Request: MESSAGE_ID_INVALID");
    expect((await refusal(fake.client.raw.editMessageText({ text: "x" }))).description).toBe("Bad Request: message identifier is not specified");
    expect((await refusal(fake.client.editMessageText(dm.id, theirs.message_id, ""))).description).toBe("Bad Request: message text is empty");
  });

  it("deleteMessage removes the bot's own message; a gone one is 'not found'; another's in a group needs admin rights", async () => {
    const { alice, dm, group } = someChats(fake.api);
    const sent = await fake.client.sendMessage(dm.id, "bye");
    await expect(fake.client.deleteMessage(dm.id, sent.message_id)).resolves.toBe(true);
    expect(fake.api.shown(dm.id)).toEqual([]);
    expect((await refusal(fake.client.deleteMessage(dm.id, sent.message_id))).description).toBe("Bad Request: message to delete not found");
    expect((await refusal(fake.client.editMessageText(dm.id, sent.message_id, "x"))).description).toBe("Bad Request: message to edit not found");
    const inGroup = fake.api.from(alice).text(group.id, "hello all").message!;
    expect((await refusal(fake.client.deleteMessage(group.id, inGroup.message_id))).description).toBe("Bad Request: message can't be deleted");
    const inPrivate = fake.api.from(alice).text(dm.id, "oops").message!;
    await expect(fake.client.deleteMessage(dm.id, inPrivate.message_id)).resolves.toBe(true);
  });
});

describe("fake Bot API: reactions, chat actions, forum topics, callback queries", () => {
  const fake = useFakeBotApi();

  it("sets one documented emoji; anything else is REACTION_INVALID, two are REACTIONS_TOO_MANY, [] clears", async () => {
    const { alice, dm } = someChats(fake.api);
    const asked = fake.api.from(alice).text(dm.id, "hi").message!;
    const react = (emoji: string[]) => fake.client.setMessageReaction(dm.id, asked.message_id, emoji.map((each) => ({ type: "emoji", emoji: each }) as never));
    await expect(react(["👀"])).resolves.toBe(true);
    expect(fake.api.shown(dm.id)[0]!.reactions).toEqual(["👀"]);
    // "❤️" carries U+FE0F; the documented heart is the bare U+2764. "✅" and "🆗" are not in the list.
    for (const emoji of ["❤️", "✅", "🆗", "x"]) expect((await refusal(react([emoji]))).description).toBe("Bad Request: REACTION_INVALID");
    expect((await refusal(react(["👍", "🔥"]))).description).toBe("Bad Request: REACTIONS_TOO_MANY");
    await expect(react(["❤"])).resolves.toBe(true);
    await expect(react([])).resolves.toBe(true);
    expect(fake.api.shown(dm.id)[0]!.reactions).toEqual([]);
    expect((await refusal(fake.client.setMessageReaction(dm.id, 999, [{ type: "emoji", emoji: "👍" }]))).description).toBe(
      "Bad Request: message to react not found",
    );
    expect((await refusal(fake.client.raw.setMessageReaction({ chat_id: dm.id, message_id: asked.message_id, reaction: [{ type: "paid" }] }))).description).toBe(
      "Bad Request: can't parse ReactionType: invalid reaction type specified",
    );
  });

  it("sendChatAction takes the documented actions, and a topic only in a forum", async () => {
    const { dm, forum, topic } = someChats(fake.api);
    await expect(fake.client.sendChatAction(dm.id, "typing")).resolves.toBe(true);
    await expect(fake.client.sendChatAction(forum.id, "typing", { message_thread_id: topic.message_thread_id })).resolves.toBe(true);
    expect((await refusal(fake.client.sendChatAction(dm.id, "thinking" as never))).description).toBe("Bad Request: wrong parameter action in request");
    expect((await refusal(fake.client.sendChatAction(dm.id, "typing", { message_thread_id: 3 }))).description).toBe("Bad Request: message thread not found");
  });

  it("createForumTopic works only in a forum supergroup; the name must be non-empty and is cut to 128 characters", async () => {
    const { group, supergroup, forum } = someChats(fake.api);
    for (const chat of [group.id, supergroup.id]) {
      expect((await refusal(fake.client.createForumTopic(chat, "Topic"))).description).toBe("Bad Request: the chat is not a forum");
    }
    expect((await refusal(fake.client.createForumTopic(forum.id, "  "))).description).toBe("Bad Request: name must be non-empty");
    expect((await refusal(fake.client.createForumTopic(forum.id, "Colour", { icon_color: 0x123456 as never }))).description).toBe(
      "Bad Request: invalid icon color specified",
    );
    const topic = await fake.client.createForumTopic(forum.id, "n".repeat(200));
    expect(topic.name).toBe("n".repeat(128));
    const sent = await fake.client.sendMessage(forum.id, "first post", { message_thread_id: topic.message_thread_id });
    expect(sent.reply_to_message).toMatchObject({ message_id: topic.message_thread_id, forum_topic_created: { name: topic.name } });
  });

  it("answerCallbackQuery answers a pressed button once; an unknown or answered query is refused", async () => {
    const { alice, dm } = someChats(fake.api);
    const sent = await fake.client.sendMessage(dm.id, "pick", { reply_markup: { inline_keyboard: [[{ text: "A", callback_data: "a" }]] } });
    const pressed = fake.api.from(alice).press(dm.id, sent.message_id, "a");
    const id = pressed.callback_query!.id;
    expect(pressed.callback_query).toMatchObject({ from: { id: alice.id }, data: "a", message: { message_id: sent.message_id } });
    await expect(fake.client.answerCallbackQuery(id, { text: "noted" })).resolves.toBe(true);
    expect(fake.api.callbackAnswers.get(id)).toEqual({ text: "noted", show_alert: false });
    expect((await refusal(fake.client.answerCallbackQuery(id))).description).toBe(
      "Bad Request: query is too old and response timeout expired or query ID is invalid",
    );
    expect(() => fake.api.from(alice).press(dm.id, sent.message_id, "b")).toThrow(/no button/);
  });

  it("a press is a callback_query update with a fresh id, the tapper, the bot's message (in its topic) and the data", async () => {
    const { alice, forum, topic } = someChats(fake.api);
    const keyboard = { inline_keyboard: [[{ text: "Allow", callback_data: "q1:allow" }, { text: "Reject", callback_data: "q1:reject" }]] };
    const sent = await fake.client.sendMessage(forum.id, "Run ls?", { message_thread_id: topic.message_thread_id, reply_markup: keyboard });
    const first = fake.api.from(alice).press(forum.id, sent.message_id, "q1:reject");
    const second = fake.api.from(alice).press(forum.id, sent.message_id, "q1:reject");
    expect(first.callback_query).toEqual({
      id: expect.any(String),
      from: alice,
      message: expect.objectContaining({ message_id: sent.message_id, chat: forum, message_thread_id: topic.message_thread_id, is_topic_message: true, reply_markup: keyboard }),
      chat_instance: expect.any(String),
      data: "q1:reject",
    });
    expect(second.callback_query!.id).not.toBe(first.callback_query!.id);
    expect(fake.api.updates.pending().map((update) => update.update_id)).toEqual([first.update_id, second.update_id]);
    expect(() => fake.api.from(alice).press(forum.id, 999, "q1:allow")).toThrow(/no button/);
  });

  it("answerCallbackQuery refuses a query it never issued and a text over 200 characters, and takes 200", async () => {
    const { alice, dm } = someChats(fake.api);
    const sent = await fake.client.sendMessage(dm.id, "pick", { reply_markup: { inline_keyboard: [[{ text: "A", callback_data: "a" }]] } });
    const id = fake.api.from(alice).press(dm.id, sent.message_id, "a").callback_query!.id;
    expect((await refusal(fake.client.answerCallbackQuery("4999999999999999"))).description).toBe(
      "Bad Request: query is too old and response timeout expired or query ID is invalid",
    );
    expect((await refusal(fake.client.answerCallbackQuery(id, { text: "é".repeat(201) }))).description).toBe("Bad Request: MESSAGE_TOO_LONG");
    await expect(fake.client.answerCallbackQuery(id, { text: "é".repeat(200) })).resolves.toBe(true);
  });

  it("an edit without reply_markup takes the buttons away, as Telegram's does; an empty inline keyboard too; another keyboard replaces them", async () => {
    const { alice, dm } = someChats(fake.api);
    const keyboard = { inline_keyboard: [[{ text: "A", callback_data: "a" }]] };
    const sent = await fake.client.sendMessage(dm.id, "pick", { reply_markup: keyboard });
    expect(fake.api.shown(dm.id)[0]!.keyboard).toEqual(keyboard.inline_keyboard);
    await fake.client.editMessageText(dm.id, sent.message_id, "pick one", { reply_markup: keyboard });
    expect(fake.api.shown(dm.id)[0]!.keyboard).toEqual(keyboard.inline_keyboard);
    await fake.client.editMessageText(dm.id, sent.message_id, "picked");
    expect(fake.api.shown(dm.id)[0]!.keyboard).toEqual([]);
    expect(() => fake.api.from(alice).press(dm.id, sent.message_id, "a")).toThrow(/no button/);
    const other = { inline_keyboard: [[{ text: "B", callback_data: "b" }]] };
    await fake.client.editMessageText(dm.id, sent.message_id, "pick again", { reply_markup: other });
    expect(fake.api.shown(dm.id)[0]!.keyboard).toEqual(other.inline_keyboard);
    const cleared = await fake.client.editMessageText(dm.id, sent.message_id, "done", { reply_markup: { inline_keyboard: [] } });
    expect(cleared).not.toHaveProperty("reply_markup");
    expect(fake.api.shown(dm.id)[0]).toMatchObject({ text: "done", keyboard: [], edits: 4 });
  });
});
