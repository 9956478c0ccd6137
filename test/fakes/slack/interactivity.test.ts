import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { refusal, someConversations, until, useFakeSlack } from "./slackFixture.js";

// Buttons, taps and ephemeral answers as the fake checks them: Block Kit's bounds on buttons,
// chat.update's blocks kept or replaced, a user's tap on a button of the bot's message as a
// block_actions envelope, and chat.postEphemeral.

const buttonsOf = (...ids: string[]) => ({ type: "actions", elements: ids.map((id) => ({ type: "button", text: { type: "plain_text", text: id }, action_id: id, value: id })) });
const question = (text: string, ...ids: string[]) => [{ type: "section", text: { type: "mrkdwn", text } }, buttonsOf(...ids)];

describe("fake Slack: buttons in Block Kit", () => {
  const slack = useFakeSlack();

  it("checks a button's text (plain_text, 1–75), action_id (1–255, unique in the message), value (≤ 2000) and style", async () => {
    const { fake, web } = slack;
    const { general } = someConversations(fake);
    const post = (blocks: unknown) => web.chat.postMessage({ channel: general.id, text: "fallback", blocks: blocks as never });
    const errorsOf = async (blocks: unknown) => ((await post(blocks).then(() => undefined, (err: { data: { errors?: string[] } }) => err.data)) as { errors?: string[] } | undefined)?.errors;
    const button = (changes: Record<string, unknown>) => [{ type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: "Go" }, action_id: "go", ...changes }] }];
    expect(await errorsOf(button({ text: { type: "plain_text", text: "x".repeat(76) } }))).toEqual(["must be less than 76 characters [json-pointer:/blocks/0/elements/0/text/text]"]);
    expect(await errorsOf(button({ text: { type: "mrkdwn", text: "*Go*" } }))).toEqual(["failed to match all allowed schemas [json-pointer:/blocks/0/elements/0/text]"]);
    expect(await errorsOf(button({ action_id: "a".repeat(256) }))).toEqual(["must be a string of 1 to 255 characters [json-pointer:/blocks/0/elements/0/action_id]"]);
    expect(await errorsOf(button({ value: "v".repeat(2001) }))).toEqual(["must be a string of at most 2000 characters [json-pointer:/blocks/0/elements/0/value]"]);
    expect(await errorsOf(button({ style: "secondary" }))).toEqual(["must be one of primary, danger [json-pointer:/blocks/0/elements/0/style]"]);
    expect(await errorsOf([{ type: "actions", elements: [{ type: "link" }] }])).toEqual(["failed to match all allowed schemas [json-pointer:/blocks/0/elements/0]"]);
    expect(await errorsOf([buttonsOf("yes", "no"), buttonsOf("yes")])).toEqual(["action_id must be unique in the message [json-pointer:/blocks/1/elements/0/action_id]"]);
    expect(await errorsOf([buttonsOf(...Array.from({ length: 26 }, (_, index) => `b${index}`))])).toEqual(["must be no more than 25 items [json-pointer:/blocks/0/elements]"]);
    await expect(post([buttonsOf(...Array.from({ length: 25 }, (_, index) => `b${index}`))])).resolves.toMatchObject({ ok: true });
  });

  it("chat.update keeps the blocks when it sends none, replaces them when it sends some, and removes them with []", async () => {
    const { fake, web } = slack;
    const { general } = someConversations(fake);
    const posted = await web.chat.postMessage({ channel: general.id, text: "Allow?", blocks: question("Allow?", "yes", "no") as never });
    const blocks = () => fake.shown(general.id).find((message) => message.ts === posted.ts)!.message.blocks;
    expect(blocks()).toMatchObject([{ type: "section", block_id: expect.any(String) }, { type: "actions", block_id: expect.any(String) }]);
    await web.chat.update({ channel: general.id, ts: posted.ts!, text: "Allow? (new fallback)" });
    expect(blocks()).toMatchObject(question("Allow?", "yes", "no"));
    await web.chat.update({ channel: general.id, ts: posted.ts!, text: "Allow?", blocks: question("Allow? Really?", "sure") as never });
    expect(blocks()).toMatchObject(question("Allow? Really?", "sure"));
    await web.chat.update({ channel: general.id, ts: posted.ts!, text: "Allowed by alice", blocks: [] });
    expect(blocks()).toBeUndefined();
    expect(fake.botTexts(general.id)).toEqual(["Allowed by alice"]);
  });
});

describe("fake Slack: a person taps a button", () => {
  const slack = useFakeSlack({ ackTimeoutMs: 300 });
  const sockets: WebSocket[] = [];
  afterEach(() => {
    for (const ws of sockets.splice(0)) ws.terminate();
  });

  /** A bare Socket Mode connection: every frame, parsed; it acks what `ack` says. */
  async function connection(ack: (frame: Record<string, unknown>) => boolean) {
    const { url } = (await (await fetch(`${slack.fake.apiUrl}apps.connections.open`, { method: "POST", headers: { authorization: `Bearer ${slack.fake.appToken}` } })).json()) as { url: string };
    const ws = new WebSocket(url);
    sockets.push(ws);
    const frames: Record<string, unknown>[] = [];
    ws.on("message", (data) => {
      const frame = JSON.parse(data.toString()) as Record<string, unknown>;
      frames.push(frame);
      if (typeof frame.envelope_id === "string" && ack(frame)) ws.send(JSON.stringify({ envelope_id: frame.envelope_id, payload: {} }));
    });
    await new Promise((resolve) => ws.once("open", resolve));
    return frames;
  }

  it("a tap on the bot's message in a thread is an interactive envelope with a block_actions payload shaped as Slack's", async () => {
    const { fake, web } = slack;
    const { general, alice } = someConversations(fake);
    const frames = await connection(() => true);
    const parent = fake.from(alice).message(general.id, "@turnstream run it");
    const posted = await web.chat.postMessage({ channel: general.id, thread_ts: parent.ts, text: "Allow?", blocks: question("Allow?", "q1:yes", "q1:no") as never });
    const payload = fake.from(alice).press(general.id, posted.ts!, "q1:no");
    await until(() => frames.some((frame) => frame.type === "interactive"));
    const envelope = frames.find((frame) => frame.type === "interactive")!;
    expect(envelope).toEqual({ envelope_id: expect.any(String), type: "interactive", payload, accepts_response_payload: false });
    expect(payload).toMatchObject({
      type: "block_actions",
      user: { id: alice.id, username: "alice", name: "alice", team_id: fake.workspace.team.id },
      container: { type: "message", message_ts: posted.ts, channel_id: general.id, is_ephemeral: false, thread_ts: parent.ts },
      channel: { id: general.id, name: "general" },
      message: { ts: posted.ts, thread_ts: parent.ts, text: "Allow?", blocks: question("Allow?", "q1:yes", "q1:no") },
      actions: [{ type: "button", action_id: "q1:no", block_id: expect.any(String), value: "q1:no", text: { type: "plain_text", text: "q1:no" }, action_ts: expect.stringMatching(/^\d+\.\d{6}$/) }],
      trigger_id: expect.stringMatching(/^[\w.]+$/),
      response_url: expect.stringMatching(/^https:\/\/hooks\.slack\.com\/actions\//),
    });
    const blockId = (fake.shown(general.id, { thread: parent.ts }).find((message) => message.ts === posted.ts)!.message.blocks![1] as { block_id: string }).block_id;
    expect((payload.actions as { block_id: string }[])[0]!.block_id).toBe(blockId);
    await until(() => fake.socket.unacked().length === 0);
  });

  it("only a button the message shows, on a message of this app's bot, in a conversation the person is in", async () => {
    const { fake, web } = slack;
    const { general, secret, alice, bob, helper } = someConversations(fake);
    const posted = await web.chat.postMessage({ channel: general.id, text: "Allow?", blocks: question("Allow?", "yes") as never });
    expect(() => fake.from(alice).press(general.id, posted.ts!, "no")).toThrow(/has no button with action_id "no"/);
    const theirs = fake.from(helper).message(general.id, "not the bot's");
    expect(() => fake.from(alice).press(general.id, theirs.ts, "yes")).toThrow(/no message .* of this app's bot/);
    const hidden = await web.chat.postMessage({ channel: secret.id, text: "Allow?", blocks: question("Allow?", "yes") as never });
    expect(() => fake.from(bob).press(secret.id, hidden.ts!, "yes")).toThrow(/bob is not in secret/);
    await web.chat.delete({ channel: general.id, ts: posted.ts! });
    expect(() => fake.from(alice).press(general.id, posted.ts!, "yes")).toThrow(/no message/);
  });

  it("a tap not acked in time is given up, never sent again (Slack shows the person an error)", async () => {
    const { fake, web } = slack;
    const { general, alice } = someConversations(fake);
    const frames = await connection(() => false);
    const posted = await web.chat.postMessage({ channel: general.id, text: "Allow?", blocks: question("Allow?", "yes") as never });
    fake.from(alice).press(general.id, posted.ts!, "yes");
    await until(() => fake.socket.undelivered.length === 1);
    expect(fake.socket.undelivered).toEqual([{ type: "interactive", event_id: undefined, attempts: 1 }]);
    expect(frames.filter((frame) => frame.type === "interactive")).toHaveLength(1);
  });
});

describe("fake Slack: chat.postEphemeral", () => {
  const slack = useFakeSlack();

  it("shows one member a message, in a thread when asked; it is in no history and raises no event", async () => {
    const { fake, web } = slack;
    const { general, alice } = someConversations(fake);
    const parent = fake.from(alice).message(general.id, "question");
    const sent = fake.socket.sent.length;
    const answer = await web.chat.postEphemeral({ channel: general.id, user: alice.id, text: "Only bob can answer this.", thread_ts: parent.ts });
    expect(answer).toMatchObject({ ok: true, message_ts: expect.stringMatching(/^\d+\.\d{6}$/) });
    expect(fake.ephemerals).toEqual([{ channel: general.id, user: alice.id, text: "Only bob can answer this.", blocks: undefined, thread_ts: parent.ts, message_ts: answer.message_ts }]);
    expect(fake.shown(general.id, { thread: parent.ts })).toHaveLength(1);
    expect(fake.socket.sent.length).toBe(sent);
  });

  it("refuses a missing user, an unknown one, one not in the channel, a channel the bot is not in, and no text", async () => {
    const { fake, web } = slack;
    const { general, secret, lobby, alice, bob } = someConversations(fake);
    await expect(web.chat.postEphemeral({ channel: general.id, text: "x" } as never)).rejects.toMatchObject({ data: { error: "invalid_arguments" } });
    expect(await refusal(web.chat.postEphemeral({ channel: general.id, user: "U0NOBODY", text: "x" }))).toBe("user_not_found");
    expect(await refusal(web.chat.postEphemeral({ channel: secret.id, user: bob.id, text: "x" }))).toBe("user_not_in_channel");
    expect(await refusal(web.chat.postEphemeral({ channel: lobby.id, user: alice.id, text: "x" }))).toBe("not_in_channel");
    expect(await refusal(web.chat.postEphemeral({ channel: general.id, user: alice.id } as never))).toBe("no_text");
    expect(fake.ephemerals).toEqual([]);
  });
});
