import { describe, expect, it } from "vitest";
import { refusal, someConversations, useFakeSlack } from "./slackFixture.js";

describe("fake Slack: chat.postMessage checks what Slack checks", () => {
  const slack = useFakeSlack();

  it("posts to a channel by id or name, and a DM by the user's id; the answer has the bot's message", async () => {
    const { fake, web } = slack;
    const { general, alice, dm } = someConversations(fake);
    const posted = await web.chat.postMessage({ channel: general.id, text: "hello" });
    expect(posted).toMatchObject({ ok: true, channel: general.id, ts: expect.stringMatching(/^\d+\.\d{6}$/), message: { type: "message", text: "hello", user: fake.bot.user.id, bot_id: fake.bot.botId, app_id: fake.bot.appId } });
    await web.chat.postMessage({ channel: "#general", text: "by name" });
    const direct = await web.chat.postMessage({ channel: alice.id, text: "psst" });
    expect(direct.channel).toBe(dm.id);
    expect(fake.botTexts(general.id)).toEqual(["hello", "by name"]);
    expect(fake.botTexts(dm.id)).toEqual(["psst"]);
  });

  it("refuses a missing or unknown channel, a private one the bot is not in (channel_not_found) and a public one (not_in_channel)", async () => {
    const { fake, web } = slack;
    const { lobby } = someConversations(fake);
    const hidden = fake.addChannel({ name: "hidden", private: true, botIsMember: false });
    expect(await refusal(web.chat.postMessage({ text: "x" } as never))).toBe("channel_not_found");
    expect(await refusal(web.chat.postMessage({ channel: "C0NOPE", text: "x" }))).toBe("channel_not_found");
    expect(await refusal(web.chat.postMessage({ channel: hidden.id, text: "x" }))).toBe("channel_not_found");
    expect(await refusal(web.chat.postMessage({ channel: lobby.id, text: "x" }))).toBe("not_in_channel");
  });

  it("refuses no text, blocks or attachments (no_text), text over 40,000 characters (msg_too_long), markdown_text beside text", async () => {
    const { fake, web } = slack;
    const { general } = someConversations(fake);
    expect(await refusal(web.chat.postMessage({ channel: general.id } as never))).toBe("no_text");
    expect(await refusal(web.chat.postMessage({ channel: general.id, text: "" }))).toBe("no_text");
    expect(await refusal(web.chat.postMessage({ channel: general.id, text: "a".repeat(40_001) }))).toBe("msg_too_long");
    expect(await refusal(web.chat.postMessage({ channel: general.id, text: "t", markdown_text: "**m**" } as never))).toBe("markdown_text_conflict");
    await expect(web.chat.postMessage({ channel: general.id, markdown_text: "**m**" } as never)).resolves.toMatchObject({ message: { blocks: [{ type: "markdown", text: "**m**" }] } });
    expect(await refusal(web.chat.postMessage({ channel: general.id, markdown_text: "m".repeat(12_001) } as never))).toBe("msg_too_long");
  });

  it("checks blocks as Block Kit: an array (invalid_blocks_format), known types and lengths (invalid_blocks), markdown blocks' total (msg_blocks_too_long)", async () => {
    const { fake, web } = slack;
    const { general } = someConversations(fake);
    const post = (blocks: unknown) => web.chat.postMessage({ channel: general.id, text: "fallback", blocks: blocks as never });
    const notJson = await fetch(`${fake.apiUrl}chat.postMessage`, { method: "POST", headers: { authorization: `Bearer ${fake.botToken}` }, body: new URLSearchParams({ channel: general.id, blocks: "{not json" }) });
    expect(await notJson.json()).toEqual({ ok: false, error: "invalid_blocks_format" });
    expect(await refusal(post({ type: "section" }))).toBe("invalid_blocks_format");
    await expect(post([{ type: "carousel" }])).rejects.toMatchObject({ data: { error: "invalid_blocks", response_metadata: { messages: ["[ERROR] failed to match all allowed schemas [json-pointer:/blocks/0]"] } } });
    await expect(post([{ type: "section", text: { type: "mrkdwn", text: "x".repeat(3001) } }])).rejects.toMatchObject({
      data: { error: "invalid_blocks", errors: ["must be less than 3001 characters [json-pointer:/blocks/0/text/text]"] },
    });
    expect(await refusal(post(Array.from({ length: 51 }, () => ({ type: "divider" }))))).toBe("invalid_blocks");
    expect(await refusal(post([{ type: "markdown", text: "a".repeat(6001) }, { type: "markdown", text: "b".repeat(6000) }]))).toBe("msg_blocks_too_long");
    const buttons = [{ type: "section", text: { type: "mrkdwn", text: "*Working…*" } }, { type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: "Cancel" }, action_id: "openab_cancel", style: "danger" }] }];
    await expect(post(buttons)).resolves.toMatchObject({ message: { blocks: buttons } });
  });

  it("threads a reply under its parent (thread_ts), updating the parent's reply_count and reply_users", async () => {
    const { fake, web } = slack;
    const { general, alice } = someConversations(fake);
    const question = fake.from(alice).message(general.id, "question");
    const answer = await web.chat.postMessage({ channel: general.id, text: "answer", thread_ts: question.ts });
    expect(answer.message).toMatchObject({ thread_ts: question.ts, parent_user_id: alice.id });
    // A reply's own ts as thread_ts lands in the same thread.
    await web.chat.postMessage({ channel: general.id, text: "more", thread_ts: answer.ts! });
    expect(fake.botTexts(general.id, { thread: question.ts })).toEqual(["answer", "more"]);
    expect(fake.shown(general.id).map((message) => message.text)).toEqual(["question"]);
    expect(fake.shown(general.id)[0]!.message).toMatchObject({ reply_count: 2, reply_users: [fake.bot.user.id], latest_reply: expect.any(String) });
  });

  it("says ok to a thread_ts that names no message (here a made-up one) and shows the reply nowhere, as Slack does; lostReplies() finds it", async () => {
    const { fake, web } = slack;
    const { general, alice } = someConversations(fake);
    fake.from(alice).message(general.id, "parent");
    await expect(web.chat.postMessage({ channel: general.id, text: "into the void", thread_ts: "1.000001" })).resolves.toMatchObject({ ok: true });
    expect(fake.botTexts(general.id)).toEqual([]);
    expect(fake.lostReplies().map((stored) => stored.message.text)).toEqual(["into the void"]);
    expect(fake.shown(general.id).map((message) => message.text)).toEqual(["parent"]);
  });

  it("a reply_broadcast reply shows in the channel too, as a thread_broadcast", async () => {
    const { fake, web } = slack;
    const { general, alice } = someConversations(fake);
    const parent = fake.from(alice).message(general.id, "parent");
    await web.chat.postMessage({ channel: general.id, text: "for everyone", thread_ts: parent.ts, reply_broadcast: true });
    expect(fake.shown(general.id).map((message) => [message.text, message.subtype])).toEqual([
      ["parent", undefined],
      ["for everyone", "thread_broadcast"],
    ]);
  });
});

describe("fake Slack: chat.update and chat.delete, the bot's own messages only", () => {
  const slack = useFakeSlack();

  it("edits the bot's message (edited, earlier texts kept); over 4,000 characters is msg_too_long", async () => {
    const { fake, web } = slack;
    const { general } = someConversations(fake);
    const posted = await web.chat.postMessage({ channel: general.id, text: "…" });
    const updated = await web.chat.update({ channel: general.id, ts: posted.ts!, text: "partial" });
    expect(updated).toMatchObject({ ok: true, channel: general.id, ts: posted.ts, text: "partial", message: { edited: { user: fake.bot.user.id } } });
    expect(await refusal(web.chat.update({ channel: general.id, ts: posted.ts!, text: "x".repeat(4001) }))).toBe("msg_too_long");
    // Characters are code points: 4,000 emoji (8,000 UTF-16 units) fit.
    await web.chat.update({ channel: general.id, ts: posted.ts!, text: "😀".repeat(4000) });
    expect(fake.shown(general.id)[0]).toMatchObject({ edits: 2, text: "😀".repeat(4000) });
    expect(fake.store.live(general.id, posted.ts!)!.earlierTexts).toEqual(["…", "partial"]);
  });

  it("refuses another's message (cant_update_message, cant_delete_message), an unknown ts (message_not_found), no text", async () => {
    const { fake, web } = slack;
    const { general, alice } = someConversations(fake);
    const theirs = fake.from(alice).message(general.id, "mine");
    expect(await refusal(web.chat.update({ channel: general.id, ts: theirs.ts, text: "hijack" }))).toBe("cant_update_message");
    expect(await refusal(web.chat.delete({ channel: general.id, ts: theirs.ts }))).toBe("cant_delete_message");
    expect(await refusal(web.chat.update({ channel: general.id, ts: "1.000001", text: "x" }))).toBe("message_not_found");
    expect(await refusal(web.chat.update({ channel: general.id, text: "x" } as never))).toBe("message_not_found");
    const posted = await web.chat.postMessage({ channel: general.id, text: "v1" });
    expect(await refusal(web.chat.update({ channel: general.id, ts: posted.ts! } as never))).toBe("no_text");
  });

  it("deletes the bot's message: gone from what the channel shows, and a second delete is message_not_found", async () => {
    const { fake, web } = slack;
    const { general } = someConversations(fake);
    const posted = await web.chat.postMessage({ channel: general.id, text: "oops" });
    await expect(web.chat.delete({ channel: general.id, ts: posted.ts! })).resolves.toMatchObject({ ok: true, channel: general.id, ts: posted.ts });
    expect(fake.botTexts(general.id)).toEqual([]);
    expect(await refusal(web.chat.delete({ channel: general.id, ts: posted.ts! }))).toBe("message_not_found");
  });
});
