import { describe, expect, it } from "vitest";
import { refusal, someConversations, useFakeSlack } from "./slackFixture.js";

describe("fake Slack: users.info, conversations.info, conversations.replies, files", () => {
  const slack = useFakeSlack();

  it("users.info gives profile.display_name and real_name (display_name empty unless set), and bots' bot_id", async () => {
    const { fake, web } = slack;
    const { alice, bob, helper } = someConversations(fake);
    await expect(web.users.info({ user: alice.id })).resolves.toMatchObject({ user: { id: alice.id, name: "alice", real_name: "Alice Liddell", is_bot: false, profile: { display_name: "Ali", real_name: "Alice Liddell" } } });
    await expect(web.users.info({ user: bob.id })).resolves.toMatchObject({ user: { profile: { display_name: "", real_name: "Bob Builder" } } });
    await expect(web.users.info({ user: helper.user.id })).resolves.toMatchObject({ user: { is_bot: true, profile: { bot_id: helper.botId } } });
    expect(await refusal(web.users.info({ user: "U0NOBODY" }))).toBe("user_not_found");
  });

  it("conversations.info describes channels (is_private, is_member) and DMs (is_im, user); a private channel the bot is not in does not exist for it", async () => {
    const { fake, web } = slack;
    const { general, secret, lobby, dm, alice } = someConversations(fake);
    const hidden = fake.addChannel({ name: "hidden", private: true, botIsMember: false });
    await expect(web.conversations.info({ channel: general.id, include_num_members: true })).resolves.toMatchObject({ channel: { id: general.id, name: "general", is_private: false, is_member: true, num_members: 4 } });
    await expect(web.conversations.info({ channel: secret.id })).resolves.toMatchObject({ channel: { is_private: true } });
    await expect(web.conversations.info({ channel: lobby.id })).resolves.toMatchObject({ channel: { is_member: false } });
    await expect(web.conversations.info({ channel: dm.id })).resolves.toMatchObject({ channel: { id: dm.id, is_im: true, user: alice.id } });
    expect(await refusal(web.conversations.info({ channel: hidden.id }))).toBe("channel_not_found");
  });

  it("conversations.replies gives a thread parent first, by the parent's ts or a reply's, with OpenAB's participation signals", async () => {
    const { fake, web } = slack;
    const { general, alice, helper } = someConversations(fake);
    const parent = fake.from(alice).message(general.id, "hey @turnstream, look");
    fake.from(helper).message(general.id, "I can help", { thread_ts: parent.ts });
    const mine = await web.chat.postMessage({ channel: general.id, thread_ts: parent.ts, text: "on it" });
    const replies = await web.conversations.replies({ channel: general.id, ts: mine.ts!, limit: 200, inclusive: true });
    expect(replies.messages!.map((message) => message.text)).toEqual([`hey <@${fake.bot.user.id}>, look`, "I can help", "on it"]);
    // What the participation check reads: the parent mentions the bot, a message is the bot's, another carries a bot_id.
    expect(replies.messages![0]!.text).toContain(fake.mention(fake.bot));
    expect(replies.messages!.some((message) => message.user === fake.bot.user.id)).toBe(true);
    expect(replies.messages!.filter((message) => message.bot_id !== undefined && message.user !== fake.bot.user.id).map((message) => message.bot_id)).toEqual([helper.botId]);
    expect(replies.has_more).toBe(false);
  });

  it("conversations.replies pages with limit and cursor, and refuses an unknown thread, a bad cursor, a channel the bot is not in", async () => {
    const { fake, web } = slack;
    const { general, lobby, alice } = someConversations(fake);
    const parent = fake.from(alice).message(general.id, "p");
    for (const text of ["r1", "r2", "r3"]) fake.from(alice).message(general.id, text, { thread_ts: parent.ts });
    const first = await web.conversations.replies({ channel: general.id, ts: parent.ts, limit: 2 });
    expect([first.messages!.map((message) => message.text), first.has_more]).toEqual([["p", "r1"], true]);
    const second = await web.conversations.replies({ channel: general.id, ts: parent.ts, limit: 2, cursor: first.response_metadata!.next_cursor! });
    expect([second.messages!.map((message) => message.text), second.has_more]).toEqual([["r2", "r3"], false]);
    expect(await refusal(web.conversations.replies({ channel: general.id, ts: "1.000001" }))).toBe("thread_not_found");
    expect(await refusal(web.conversations.replies({ channel: general.id, ts: parent.ts, cursor: "garbage" }))).toBe("invalid_cursor");
    const elsewhere = fake.from(alice).message(lobby.id, "unseen");
    expect(await refusal(web.conversations.replies({ channel: lobby.id, ts: elsewhere.ts }))).toBe("not_in_channel");
  });

  it("files.info and url_private_download serve a shared file for the bot token; without it Slack's sign-in page comes back, HTTP 200", async () => {
    const { fake, web } = slack;
    const { general, alice } = someConversations(fake);
    const shared = fake.from(alice).shareFile(general.id, { name: "notes.txt", mimetype: "text/plain; charset=utf-8", bytes: "hello file" }, { text: "see attached" });
    const info = await web.files.info({ file: shared.file.id });
    expect(info.file).toMatchObject({ id: shared.file.id, name: "notes.txt", mimetype: "text/plain; charset=utf-8", size: 10 });
    const download = await fetch(info.file!.url_private_download!, { headers: { authorization: `Bearer ${fake.botToken}` } });
    expect([download.status, await download.text()]).toEqual([200, "hello file"]);
    const stranger = await fetch(info.file!.url_private!);
    expect([stranger.status, stranger.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
    expect(await refusal(web.files.info({ file: "F0NOPE" }))).toBe("file_not_found");
  });
});
