import type { Message, Update } from "grammy/types";
import { describe, expect, it } from "vitest";
import { readUpdate, telegramEventId, telegramTapEventId } from "../../../src/platforms/telegram/updateEvent.js";

// The update → event mapping, pure: reference §4.2 (OpenAB's gateway), with mentions sliced by
// UTF-16 offsets as Telegram counts them.

const alice = { id: 1001, is_bot: false, first_name: "Alice", last_name: "Liddell", username: "alice_tg" };
const dm = { id: 1001, type: "private", first_name: "Alice" } as const;
const group = { id: -4001, type: "group", title: "Plain group" } as const;
const forum = { id: -1000000005002, type: "supergroup", title: "Forum", is_forum: true } as const;
const supergroup = { id: -1000000005001, type: "supergroup", title: "Supergroup" } as const;

function update(message: Partial<Message> & Pick<Message, "chat">, updateId = 7): Update {
  return { update_id: updateId, message: { message_id: 42, date: 1_767_225_600, from: alice, ...message } as Update["message"] & object };
}

function eventOf(u: Update) {
  const reading = readUpdate(u);
  if (reading.kind !== "event") throw new Error(`skipped: ${reading.reason}`);
  return reading;
}

describe("readUpdate", () => {
  it("maps a DM as OpenAB's gateway does: ids as decimal strings, chat.type verbatim, the sender's names, the message date", () => {
    const { event, media } = eventOf(update({ chat: dm, text: "  hello  " }, 90));
    expect(event).toEqual({
      schema: "openab.gateway.event.v1",
      event_id: "tg90",
      timestamp: "2026-01-01T00:00:00.000Z",
      platform: "telegram",
      channel: { id: "1001", type: "private" },
      sender: { id: "1001", name: "alice_tg", display_name: "Alice Liddell", is_bot: false },
      content: { type: "text", text: "  hello  " },
      mentions: [],
      message_id: "42",
      proactive: false,
    });
    expect(media).toEqual([]);
  });

  it("gives every delivery of an update the same event id (msg-id dedupe across restarts and webhook retries)", () => {
    expect(eventOf(update({ chat: dm, text: "hi" }, 123)).event.event_id).toBe(telegramEventId(123));
    expect(eventOf(update({ chat: dm, text: "hi" }, 123))).toEqual(eventOf(update({ chat: dm, text: "hi" }, 123)));
  });

  it("slices mentions by UTF-16 offsets: emoji and Cyrillic before the mention do not shift it", () => {
    // "🙂" is two UTF-16 units, each Cyrillic letter one (two UTF-8 bytes): OpenAB's byte slicing misses this one.
    const text = "🙂 Привет @turnstream_test_bot и @alice_tg";
    const offset = text.indexOf("@turnstream_test_bot");
    expect(offset).toBe(10);
    const { event } = eventOf(
      update({
        chat: group,
        text,
        entities: [
          { type: "mention", offset, length: "@turnstream_test_bot".length },
          { type: "mention", offset: text.indexOf("@alice_tg"), length: "@alice_tg".length },
        ],
      }),
    );
    expect(event.mentions).toEqual(["turnstream_test_bot", "alice_tg"]);
    expect(event.channel).toEqual({ id: "-4001", type: "group" });
  });

  it("takes mentions from a caption's entities, and ignores text_mention and bot_command entities", () => {
    const { event } = eventOf(
      update({
        chat: group,
        text: "/start@turnstream_test_bot Bob",
        entities: [
          { type: "bot_command", offset: 0, length: 26 },
          { type: "text_mention", offset: 27, length: 3, user: { id: 5, is_bot: false, first_name: "Bob" } },
        ],
      }),
    );
    expect(event.mentions).toEqual([]);
    const captioned = eventOf(update({ chat: group, photo: [{ file_id: "p", file_unique_id: "u", width: 10, height: 10 }], caption: "look @turnstream_test_bot", caption_entities: [{ type: "mention", offset: 5, length: 20 }] }));
    expect(captioned.event.content.text).toBe("look @turnstream_test_bot");
    expect(captioned.event.mentions).toEqual(["turnstream_test_bot"]);
  });

  it("keeps a group message without a mention (the edge's gate decides), with no mentions", () => {
    const { event } = eventOf(update({ chat: supergroup, text: "anyone here?" }));
    expect(event.channel).toEqual({ id: "-1000000005001", type: "supergroup" });
    expect(event.mentions).toEqual([]);
  });

  it("makes a forum topic the thread; a reply thread of a group that is no forum is not one", () => {
    expect(eventOf(update({ chat: forum, text: "in a topic", message_thread_id: 17, is_topic_message: true })).event.channel).toEqual({ id: "-1000000005002", type: "supergroup", thread_id: "17" });
    expect(eventOf(update({ chat: supergroup, text: "a reply", message_thread_id: 40 })).event.channel).toEqual({ id: "-1000000005001", type: "supergroup" });
  });

  it("says a bot is a bot, and fills a sender-less message as upstream (empty id, unknown names)", () => {
    const bot = { id: 9, is_bot: true, first_name: "Helper", username: "helper_bot" };
    expect(eventOf(update({ chat: group, text: "beep", from: bot })).event.sender).toEqual({ id: "9", name: "helper_bot", display_name: "Helper", is_bot: true });
    const nobody = update({ chat: group, text: "who?" });
    delete (nobody.message as Partial<Message>).from;
    expect(eventOf(nobody).event.sender).toEqual({ id: "", name: "unknown", display_name: "Unknown", is_bot: false });
    const noUsername = { id: 3, is_bot: false, first_name: "Carol" };
    expect(eventOf(update({ chat: dm, text: "hi", from: noUsername })).event.sender).toEqual({ id: "3", name: "unknown", display_name: "Carol", is_bot: false });
  });

  it("reads a voice note as audio to download, with the caption as the text", () => {
    const { event, media } = eventOf(update({ chat: dm, voice: { file_id: "v1", file_unique_id: "u", duration: 2, mime_type: "audio/ogg", file_size: 1200 } }));
    expect(event.content.text).toBe("");
    expect(media).toEqual([{ kind: "download", fileId: "v1", type: "audio", filename: "voice.ogg", mime_type: "audio/ogg", size: 1200, maxBytes: 25 * 1024 * 1024 }]);
  });

  it("skips updates that are not new messages, and messages with nothing to answer", () => {
    expect(readUpdate({ update_id: 1, edited_message: { message_id: 1, date: 0, chat: dm, text: "x", edit_date: 1 } } as Update)).toEqual({ kind: "skip", reason: "not_a_message" });
    expect(readUpdate({ update_id: 2, channel_post: { message_id: 1, date: 0, chat: { id: -100, type: "channel", title: "c" }, text: "x" } } as Update)).toEqual({ kind: "skip", reason: "not_a_message" });
    expect(readUpdate(update({ chat: group, new_chat_members: [alice] }))).toEqual({ kind: "skip", reason: "no_content" });
    expect(readUpdate(update({ chat: dm, sticker: { file_id: "s", file_unique_id: "u", type: "regular", width: 1, height: 1, is_animated: false, is_video: false } }))).toEqual({ kind: "skip", reason: "no_content" });
    expect(readUpdate(update({ chat: dm, text: " \n " }))).toEqual({ kind: "skip", reason: "no_content" });
  });
});

describe("readUpdate: taps on buttons (callback queries)", () => {
  const bot = { id: 123456789, is_bot: true, first_name: "Turnstream", username: "turnstream_test_bot" };
  const RECEIVED = new Date("2026-01-01T00:05:00.000Z");

  /** A tap by alice on a button of the bot's message 42 in `chat`; `query` overrides the query's fields. */
  function tap(chat: Message["chat"], query: Record<string, unknown> = {}, message: Partial<Message> = {}): Update {
    return {
      update_id: 8,
      callback_query: { id: "4000000000000001", from: alice, chat_instance: "-88", data: "q1:allow", message: { message_id: 42, date: 1_767_225_600, chat, from: bot, text: "Run ls?", ...message }, ...query },
    } as unknown as Update;
  }

  it("maps a tap to its event: who tapped, the button's message and its conversation, the data, no text, stamped when received", () => {
    expect(readUpdate(tap(dm), RECEIVED)).toEqual({
      kind: "event",
      media: [],
      event: {
        schema: "openab.gateway.event.v1",
        event_id: "tap:4000000000000001",
        timestamp: "2026-01-01T00:05:00.000Z",
        platform: "telegram",
        channel: { id: "1001", type: "private" },
        sender: { id: "1001", name: "alice_tg", display_name: "Alice Liddell", is_bot: false },
        content: { type: "text", text: "" },
        mentions: [],
        message_id: "42",
        proactive: false,
        tap: { id: "4000000000000001", data: "q1:allow" },
      },
    });
    expect(telegramTapEventId("4000000000000001")).toBe("tap:4000000000000001");
  });

  it("keys a tap as a message posted where the button is: a forum topic is the thread, a reply thread of a group that is no forum is not", () => {
    const inTopic = eventOf(tap(forum, {}, { message_thread_id: 17, is_topic_message: true })).event;
    const messageThere = eventOf(update({ chat: forum, text: "hi", message_thread_id: 17, is_topic_message: true })).event;
    expect(inTopic.channel).toEqual({ id: "-1000000005002", type: "supergroup", thread_id: "17" });
    expect(inTopic.channel).toEqual(messageThere.channel);
    expect(eventOf(tap(supergroup, {}, { message_thread_id: 40 })).event.channel).toEqual({ id: "-1000000005001", type: "supergroup" });
  });

  it("takes data of exactly 64 bytes, as it came (untrusted)", () => {
    const data = "é".repeat(32);
    expect(eventOf(tap(dm, { data })).event.tap).toEqual({ id: "4000000000000001", data });
  });

  it("skips a tap with no data, data over 64 bytes, no message (inline mode), an inaccessible message, or a malformed query", () => {
    expect(readUpdate(tap(dm, { data: undefined, game_short_name: "chess" }))).toEqual({ kind: "skip", reason: "tap_no_data" });
    expect(readUpdate(tap(dm, { data: "" }))).toEqual({ kind: "skip", reason: "tap_no_data" });
    expect(readUpdate(tap(dm, { data: 7 }))).toEqual({ kind: "skip", reason: "tap_no_data" });
    expect(readUpdate(tap(dm, { data: "x".repeat(65) }))).toEqual({ kind: "skip", reason: "tap_data_too_long" });
    expect(readUpdate(tap(dm, { data: "é".repeat(33) }))).toEqual({ kind: "skip", reason: "tap_data_too_long" });
    expect(readUpdate(tap(dm, { message: undefined, inline_message_id: "AgAAAB" }))).toEqual({ kind: "skip", reason: "tap_no_message" });
    expect(readUpdate(tap(dm, { message: { message_id: 42, date: 0, chat: forum } }))).toEqual({ kind: "skip", reason: "tap_message_inaccessible" });
    for (const query of [{ id: "" }, { id: 5 }, { id: "1".repeat(65) }, { from: undefined }, { from: { id: "1001" } }]) {
      expect(readUpdate(tap(dm, query))).toEqual({ kind: "skip", reason: "malformed" });
    }
  });
});
