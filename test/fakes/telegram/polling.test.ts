import { describe, expect, it } from "vitest";
import { Bot } from "grammy";
import { BOT, refusal, someChats, TOKEN, until, useFakeBotApi } from "./fakeBotApiFixture.js";

const TERMINATED = "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running";

describe("fake Bot API: getUpdates", () => {
  const fake = useFakeBotApi({ firstUpdateId: 500 });

  it("returns pushed updates with increasing update_id; an offset confirms every update below it", async () => {
    const { alice, dm } = someChats(fake.api);
    const user = fake.api.from(alice);
    user.text(dm.id, "one");
    user.text(dm.id, "two");
    user.text(dm.id, "three");
    const first = await fake.client.getUpdates();
    expect(first.map((update) => [update.update_id, update.message?.text])).toEqual([[500, "one"], [501, "two"], [502, "three"]]);
    // Not confirmed yet: asked again, the same updates come back.
    expect((await fake.client.getUpdates()).map((update) => update.update_id)).toEqual([500, 501, 502]);
    expect((await fake.client.getUpdates({ offset: 502 })).map((update) => update.update_id)).toEqual([502]);
    expect(fake.api.updates.pending().map((update) => update.update_id)).toEqual([502]);
    expect(await fake.client.getUpdates({ offset: 503 })).toEqual([]);
    expect(fake.api.updates.pending()).toEqual([]);
  });

  it("limit is clamped to 1–100 and a negative offset keeps only the last updates, as Telegram does", async () => {
    const { alice, dm } = someChats(fake.api);
    for (let i = 0; i < 5; i++) fake.api.from(alice).text(dm.id, `m${i}`);
    expect(await fake.client.getUpdates({ limit: 2 })).toHaveLength(2);
    expect(await fake.client.getUpdates({ limit: 0 })).toHaveLength(1);
    expect(await fake.client.getUpdates({ limit: 1000 })).toHaveLength(5);
    expect((await fake.client.getUpdates({ offset: -2 })).map((update) => update.message?.text)).toEqual(["m3", "m4"]);
    expect(fake.api.updates.pending()).toHaveLength(2);
  });

  it("a long poll returns as soon as an update arrives, and [] when its timeout passes", async () => {
    const { alice, dm } = someChats(fake.api);
    const started = Date.now();
    const poll = fake.client.getUpdates({ timeout: 30 });
    setTimeout(() => fake.api.from(alice).text(dm.id, "wake up"), 150);
    const updates = await poll;
    expect(updates.map((update) => update.message?.text)).toEqual(["wake up"]);
    expect(Date.now() - started).toBeLessThan(15_000);
    const emptyStarted = Date.now();
    expect(await fake.client.getUpdates({ offset: updates[0]!.update_id + 1, timeout: 1 })).toEqual([]);
    expect(Date.now() - emptyStarted).toBeGreaterThanOrEqual(900);
  });

  it("a second waiting poll ends the first with 409 Conflict; the overlap is counted", async () => {
    const { alice, dm } = someChats(fake.api);
    const first = refusal(fake.client.getUpdates({ timeout: 30 }));
    await until(() => fake.api.updates.pollersInFlight === 1);
    const second = fake.client.getUpdates({ timeout: 30 });
    const error = await first;
    expect([error.error_code, error.description]).toEqual([409, TERMINATED]);
    fake.api.from(alice).text(dm.id, "for the survivor");
    expect((await second).map((update) => update.message?.text)).toEqual(["for the survivor"]);
    expect(fake.api.maxConcurrentPollers).toBe(2);
    expect(fake.api.updates.conflicts).toBe(1);
  });

  it("one poller after another is never counted as an overlap, including grammY's own start and stop", async () => {
    const { alice, dm } = someChats(fake.api);
    const bot = new Bot(TOKEN, { client: { apiRoot: fake.api.root }, botInfo: { ...BOT, is_bot: true } as never });
    const seen: string[] = [];
    bot.on("message:text", async (context) => {
      seen.push(context.message.text);
      await context.reply(`echo: ${context.message.text}`);
    });
    const running = bot.start({ timeout: 20, drop_pending_updates: false });
    fake.api.from(alice).text(dm.id, "ping");
    await until(() => fake.api.botTexts(dm.id).length === 1);
    await bot.stop();
    await running;
    expect(seen).toEqual(["ping"]);
    expect(fake.api.botTexts(dm.id)).toEqual(["echo: ping"]);
    expect(fake.api.maxConcurrentPollers).toBe(1);
    // grammY confirmed the update on stop: nothing is pending.
    expect(fake.api.updates.pending()).toEqual([]);
  });

  it("allowed_updates filters updates pushed after it; by default every type but reactions and chat_member", async () => {
    const { alice, dm } = someChats(fake.api);
    const user = fake.api.from(alice);
    const message = user.text(dm.id, "before").message!;
    await fake.client.getUpdates({ offset: -1, allowed_updates: ["message"] });
    user.edit(dm.id, message.message_id, "after edit");
    user.text(dm.id, "kept");
    expect((await fake.client.getUpdates()).map((update) => Object.keys(update)[1])).toEqual(["message", "message"]);
    expect(fake.api.updates.filtered.map((update) => update.edited_message?.text)).toEqual(["after edit"]);
    expect((await refusal(fake.client.getUpdates({ allowed_updates: ["messages" as never] }))).description).toBe(
      'Bad Request: allowed_updates names an unknown update type "messages"',
    );
  });

  it("builds the updates users cause: mentions at UTF-16 offsets, replies, topics, media, bots, edits", async () => {
    const { alice, dm, forum, topic } = someChats(fake.api);
    const user = fake.api.from(alice);
    const mention = user.text(forum.id, "héllo 👋 @turnstream_test_bot /ask@turnstream_test_bot", { threadId: topic.message_thread_id }).message!;
    expect(mention.entities).toEqual([
      { type: "mention", offset: 9, length: 20 },
      { type: "bot_command", offset: 30, length: 24 },
    ]);
    expect("héllo 👋 @turnstream_test_bot".slice(9, 29)).toBe("@turnstream_test_bot");
    expect(mention).toMatchObject({ message_thread_id: topic.message_thread_id, is_topic_message: true, reply_to_message: { message_id: topic.message_thread_id } });
    const reply = user.text(dm.id, "answer", { replyTo: user.text(dm.id, "q").message!.message_id }).message!;
    expect(reply.reply_to_message?.text).toBe("q");
    const otherBot = fake.api.addUser({ id: 2002, first_name: "Helper", username: "helper_bot", is_bot: true });
    expect(fake.api.from(otherBot).text(forum.id, "beep", { threadId: topic.message_thread_id }).message!.from).toMatchObject({ is_bot: true });
    const voice = user.voice(dm.id, Buffer.from("OggS…"), { duration: 3 }).message!;
    expect(voice.voice).toMatchObject({ duration: 3, mime_type: "audio/ogg", file_size: 7 });
    const photo = user.photo(dm.id, "jpeg bytes", { caption: "look @turnstream_test_bot" }).message!;
    expect(photo.photo).toHaveLength(2);
    expect(photo.caption_entities).toEqual([{ type: "mention", offset: 5, length: 20 }]);
    const document = user.document(dm.id, "# notes", { fileName: "notes.md", mimeType: "text/markdown" }).message!;
    expect(document.document).toMatchObject({ file_name: "notes.md", mime_type: "text/markdown" });
    const edited = user.edit(dm.id, reply.message_id, "changed answer");
    expect(edited.edited_message).toMatchObject({ message_id: reply.message_id, text: "changed answer", edit_date: expect.any(Number) });
  });
});
