import type { Update } from "grammy/types";
import { afterEach, describe, expect, it } from "vitest";
import type { OutboundChoice } from "../../../operators/delivery/outboundMessage.js";
import { sessionKey } from "../../../operators/dispatch/sessionKey.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import type { TelegramConfig } from "../../../src/config/sections/telegram.js";
import { TelegramPort } from "../../../src/platforms/telegram/index.js";
import { captureLogs } from "../../helpers/logCapture.js";
import { someChats, until, useFakeBotApi } from "../../fakes/telegram/fakeBotApiFixture.js";
import { refusedWith, reply } from "./replyFixtures.js";
import { telegramConfig } from "./telegramTestConfig.js";

// Buttons (issue 41) on the Telegram port, against the fake Bot API over HTTP: a message's choices
// as an inline keyboard, taken away by an edit; a tap on one as a callback_query update that becomes
// a tap event, confirmed to Telegram only once settled; answer_tap as answerCallbackQuery.

const fake = useFakeBotApi({ webhookRetryDelayMs: 50 });
const ports: TelegramPort[] = [];
afterEach(async () => {
  await Promise.all(ports.splice(0).map((port) => port.close()));
});

const CHOICES: readonly OutboundChoice[] = [
  { label: "Allow once", data: "q1:allow_once" },
  { label: "Reject", data: "q1:reject" },
];
const KEYBOARD = [
  [
    { text: "Allow once", callback_data: "q1:allow_once" },
    { text: "Reject", callback_data: "q1:reject" },
  ],
];
const SKIPPED = "telegram update skipped";

function portOf(overrides: Partial<TelegramConfig> = {}) {
  const { logger, records } = captureLogs();
  const port = new TelegramPort({ config: telegramConfig(fake.api, overrides), logger, backoff: { initialMs: 50, maxMs: 200, unauthorizedMs: 200 } });
  ports.push(port);
  const events: GatewayEvent[] = [];
  port.events.subscribe((event) => events.push(event));
  return { port, events, records };
}

/** A polling port, its first poll answered. */
async function polling() {
  const started = portOf();
  await started.port.prepare();
  started.port.start();
  await until(() => started.port.isConnected);
  return started;
}

/** The question as the port sends it: its Telegram message id. */
async function asked(port: TelegramPort, chat: number, options: { thread?: number } = {}): Promise<number> {
  return Number((await port.send(reply(chat, "Run `ls`?", { ...options, choices: CHOICES }))).messageId);
}

describe("TelegramPort.send: choices as an inline keyboard", () => {
  it("a send with choices carries them as one row of callback buttons, and the chat shows them", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    const id = await asked(port, dm.id);
    expect(fake.api.callsOf("sendMessage").map((call) => call.params)).toEqual([
      { chat_id: dm.id, text: "Run `ls`?", parse_mode: "Markdown", reply_markup: { inline_keyboard: KEYBOARD } },
    ]);
    expect(fake.api.shown(dm.id)).toMatchObject([{ message_id: id, text: "Run ls?", keyboard: KEYBOARD }]);
  });

  it("keeps the buttons on the plain-text retry after Telegram refused the Markdown, and on a text that is no Markdown", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    fake.api.failNext("sendMessage", { error_code: 400, description: "Bad Request: can't parse entities: Can't find end of the entity starting at byte offset 0" });
    await port.send(reply(dm.id, "*Allow?*", { choices: CHOICES }));
    await port.send(reply(dm.id, "edit snake_case.py?", { choices: CHOICES }));
    expect(fake.api.callsOf("sendMessage").map((call) => [call.params.parse_mode, call.status, call.params.reply_markup])).toEqual([
      ["Markdown", 400, { inline_keyboard: KEYBOARD }],
      [undefined, 200, { inline_keyboard: KEYBOARD }],
      [undefined, 200, { inline_keyboard: KEYBOARD }],
    ]);
    expect(fake.api.shown(dm.id).map((shown) => [shown.text, shown.keyboard])).toEqual([
      ["*Allow?*", KEYBOARD],
      ["edit snake_case.py?", KEYBOARD],
    ]);
  });

  it("a question with a heading goes as sendMessage, not rich (the edit that removes its buttons needs a text message); without buttons it goes rich", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf({ rich_messages: true });
    const question = "## Permission\n\nRun `ls`?";
    const { messageId } = await port.send(reply(dm.id, question, { choices: CHOICES }));
    expect(fake.api.callsOf("sendRichMessage")).toEqual([]);
    expect(fake.api.callsOf("sendMessage")[0]?.params.reply_markup).toEqual({ inline_keyboard: KEYBOARD });
    await port.send(reply(dm.id, "answered", { command: "edit_message", reply_to: messageId, choices: [] }));
    expect(fake.api.shown(dm.id)).toMatchObject([{ text: "answered", keyboard: [] }]);
    await port.send(reply(dm.id, question));
    expect(fake.api.callsOf("sendRichMessage")).toHaveLength(1);
  });

  it("buttons in a forum topic, under a quoted message", async () => {
    const { alice, forum, topic } = someChats(fake.api);
    const { port } = portOf();
    const theirs = fake.api.from(alice).text(forum.id, "ls please", { threadId: topic.message_thread_id }).message!;
    await port.send(reply(forum.id, "Run ls?", { thread: topic.message_thread_id, quote: String(theirs.message_id), choices: CHOICES }));
    expect(fake.api.shown(forum.id, { thread: topic.message_thread_id }).at(-1)).toMatchObject({ text: "Run ls?", reply_to_message_id: theirs.message_id, keyboard: KEYBOARD });
  });

  it("choices: [] on a send is no keyboard; a choice Telegram would refuse is rejected without a call", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    await port.send(reply(dm.id, "no buttons", { choices: [] }));
    expect(fake.api.callsOf("sendMessage")[0]?.params).not.toHaveProperty("reply_markup");
    const calls = fake.api.calls.length;
    for (const choice of [{ label: "", data: "q1:a" }, { label: "  ", data: "q1:a" }, { label: "A", data: "" }, { label: "A", data: "x".repeat(65) }]) {
      const error = await refusedWith(port.send(reply(dm.id, "pick", { choices: [CHOICES[0]!, choice] })));
      expect([error.code, error.message]).toEqual(["rejected", "choice 2: a button needs a label and 1 to 64 bytes of data"]);
      expect((await refusedWith(port.send(reply(dm.id, "pick", { command: "edit_message", reply_to: "1", choices: [choice] })))).code).toBe("rejected");
    }
    expect(fake.api.calls).toHaveLength(calls);
  });
});

describe("TelegramPort.send: edits of a message with buttons", () => {
  it("an edit with choices: [] sends an empty inline keyboard and the buttons are gone; a tap on them is no longer possible", async () => {
    const { alice, dm } = someChats(fake.api);
    const { port } = portOf();
    const id = await asked(port, dm.id);
    await expect(port.send(reply(dm.id, "Allowed once by Alice", { command: "edit_message", reply_to: String(id), choices: [] }))).resolves.toEqual({ messageId: String(id) });
    expect(fake.api.callsOf("editMessageText")[0]?.params).toEqual({ chat_id: dm.id, message_id: id, text: "Allowed once by Alice", parse_mode: "Markdown", reply_markup: { inline_keyboard: [] } });
    expect(fake.api.shown(dm.id)).toMatchObject([{ text: "Allowed once by Alice", keyboard: [], edits: 1 }]);
    expect(() => fake.api.from(alice).press(dm.id, id, "q1:reject")).toThrow(/no button/);
    // The same again: "not modified" is success.
    await expect(port.send(reply(dm.id, "Allowed once by Alice", { command: "edit_message", reply_to: String(id), choices: [] }))).resolves.toEqual({ messageId: String(id) });
    expect(fake.api.callsOf("editMessageText").at(-1)?.description).toContain("message is not modified");
  });

  it("an edit without choices keeps the buttons (sent again: Telegram's edit without reply_markup would take them away); new choices replace them", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    const id = await asked(port, dm.id);
    await port.send(reply(dm.id, "Run `ls`? (4 min left)", { command: "edit_message", reply_to: String(id) }));
    expect(fake.api.callsOf("editMessageText")[0]?.params.reply_markup).toEqual({ inline_keyboard: KEYBOARD });
    expect(fake.api.shown(dm.id)).toMatchObject([{ text: "Run ls? (4 min left)", keyboard: KEYBOARD }]);
    const other = [{ label: "Yes", data: "q2:yes" }];
    await port.send(reply(dm.id, "Sure?", { command: "edit_message", reply_to: String(id), choices: other }));
    await port.send(reply(dm.id, "Sure? (1 min left)", { command: "edit_message", reply_to: String(id) }));
    expect(fake.api.shown(dm.id)).toMatchObject([{ text: "Sure? (1 min left)", keyboard: [[{ text: "Yes", callback_data: "q2:yes" }]] }]);
    await port.send(reply(dm.id, "Done", { command: "edit_message", reply_to: String(id), choices: [] }));
    await port.send(reply(dm.id, "Done.", { command: "edit_message", reply_to: String(id) }));
    expect(fake.api.callsOf("editMessageText").at(-1)?.params).not.toHaveProperty("reply_markup");
    expect(fake.api.shown(dm.id)).toMatchObject([{ text: "Done.", keyboard: [] }]);
  });

  it("an edit of a message without buttons sends no reply_markup; one through an edge that did not put the buttons there cannot keep them", async () => {
    const { dm } = someChats(fake.api);
    const plain = Number((await portOf().port.send(reply(dm.id, "draft"))).messageId);
    const other = portOf().port;
    await other.send(reply(dm.id, "final", { command: "edit_message", reply_to: String(plain) }));
    expect(fake.api.callsOf("editMessageText")[0]?.params).not.toHaveProperty("reply_markup");
    const id = await asked(portOf().port, dm.id);
    await other.send(reply(dm.id, "Run ls? (4 min left)", { command: "edit_message", reply_to: String(id) }));
    expect(fake.api.shown(dm.id).at(-1)).toMatchObject({ text: "Run ls? (4 min left)", keyboard: [] });
  });
});

describe("TelegramPort: taps become events", () => {
  it("a tap on a button is a tap event: who tapped, where, on which message, the data; its update confirmed only once settled", async () => {
    const { alice, dm } = someChats(fake.api);
    const { port, events } = await polling();
    const id = await asked(port, dm.id);
    const tapped = fake.api.from(alice).press(dm.id, id, "q1:reject");
    const queryId = tapped.callback_query!.id;
    await until(() => events.length === 1);
    expect(events[0]).toEqual({
      schema: "openab.gateway.event.v1",
      event_id: `tap:${queryId}`,
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      platform: "telegram",
      channel: { id: String(dm.id), type: "private" },
      sender: { id: String(alice.id), name: "alice_tg", display_name: "Alice", is_bot: false },
      content: { type: "text", text: "" },
      mentions: [],
      message_id: String(id),
      proactive: false,
      tap: { id: queryId, data: "q1:reject" },
    });
    // Not settled: the update is still Telegram's.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fake.api.updates.pending().map((update) => update.update_id)).toEqual([tapped.update_id]);
    port.settled(events[0]!);
    await until(() => fake.api.updates.pending().length === 0);
    expect(fake.api.callsOf("getUpdates").at(-1)?.params).toMatchObject({ offset: tapped.update_id + 1, allowed_updates: ["message", "callback_query"] });
  });

  it("a tap in a forum topic goes to that topic's conversation, in order with its messages; the batch is confirmed once both settled", async () => {
    const { alice, forum, topic } = someChats(fake.api);
    const { port, events } = await polling();
    const id = await asked(port, forum.id, { thread: topic.message_thread_id });
    const said = fake.api.from(alice).text(forum.id, "hold on @turnstream_test_bot", { threadId: topic.message_thread_id });
    const tapped = fake.api.from(alice).press(forum.id, id, "q1:allow_once");
    await until(() => events.length === 2);
    const [message, tap] = events as [GatewayEvent, GatewayEvent];
    expect([message.event_id, tap.event_id]).toEqual([`tg${said.update_id}`, `tap:${tapped.callback_query!.id}`]);
    expect(tap.channel).toEqual({ id: String(forum.id), type: "supergroup", thread_id: String(topic.message_thread_id) });
    expect(tap.channel).toEqual(message.channel);
    expect(sessionKey(tap)).toBe(sessionKey(message));
    port.settled(tap);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fake.api.updates.pending().map((update) => update.update_id)).toEqual([said.update_id, tapped.update_id]);
    port.settled(message);
    await until(() => fake.api.updates.pending().length === 0);
  });

  it("a tap delivered by webhook is an event too, answered 200 only once settled", async () => {
    const { alice, dm } = someChats(fake.api);
    const { port, events } = portOf({ mode: "webhook", webhook_listen: "127.0.0.1:0", secret_token: "hook_secret-1" });
    await port.prepare();
    port.start();
    await until(() => port.isConnected);
    const id = await asked(port, dm.id);
    await fake.client.setWebhook(`${port.webhookUrl!}/webhook/telegram`, { secret_token: "hook_secret-1", allowed_updates: ["message", "callback_query"] });
    const tapped = fake.api.from(alice).press(dm.id, id, "q1:allow_once");
    await until(() => events.length === 1);
    expect(events[0]).toMatchObject({ event_id: `tap:${tapped.callback_query!.id}`, message_id: String(id), tap: { data: "q1:allow_once" } });
    expect(fake.api.webhook.deliveries).toEqual([]);
    port.settled(events[0]!);
    await until(() => fake.api.webhook.deliveries.length === 1);
    expect(fake.api.webhook.deliveries[0]).toMatchObject({ update_id: tapped.update_id, status: 200 });
  });

  it("drops a callback query it cannot read, logging why, and confirms it at once", async () => {
    const { alice, dm } = someChats(fake.api);
    const { port, events, records } = await polling();
    const id = await asked(port, dm.id);
    const message = fake.api.shown(dm.id)[0]!.message;
    const query = { id: "4100000000000001", from: alice, chat_instance: "-7", message, data: "q1:reject" };
    const forged = [
      { ...query, data: undefined, game_short_name: "chess" },
      { ...query, data: "x".repeat(65) },
      { ...query, message: undefined, inline_message_id: "AgAAAB0" },
      { ...query, message: { message_id: id, chat: dm, date: 0 } },
      { ...query, id: "" },
    ];
    const dropped = forged.map((body) => fake.api.updates.push({ callback_query: body } as Omit<Update, "update_id">));
    const after = fake.api.from(alice).text(dm.id, "still here");
    await until(() => events.length === 1);
    expect(events[0]?.event_id).toBe(`tg${after.update_id}`);
    expect(records.filter((r) => r.msg === SKIPPED).map((r) => [r.reason, r.update_id])).toEqual([
      ["tap_no_data", dropped[0]!.update_id],
      ["tap_data_too_long", dropped[1]!.update_id],
      ["tap_no_message", dropped[2]!.update_id],
      ["tap_message_inaccessible", dropped[3]!.update_id],
      ["malformed", dropped[4]!.update_id],
    ]);
    port.settled(events[0]!);
    await until(() => fake.api.updates.pending().length === 0);
  });
});

describe("TelegramPort.send: answer_tap", () => {
  /** Alice's tap on a question the port asked in her private chat: its callback query id, for the worker to answer. */
  async function aTap() {
    const { alice, dm } = someChats(fake.api);
    const { port, records } = portOf();
    const id = await asked(port, dm.id);
    return { port, records, dm, queryId: fake.api.from(alice).press(dm.id, id, "q1:reject").callback_query!.id };
  }

  it("answers with answerCallbackQuery and the notice, which only the tapper sees; the receipt's message id is \"\"", async () => {
    const { port, dm, queryId } = await aTap();
    await expect(port.send(reply(dm.id, "Only Bob can answer this.", { command: "answer_tap", reply_to: queryId }))).resolves.toEqual({ messageId: "" });
    expect(fake.api.callsOf("answerCallbackQuery").map((call) => call.params)).toEqual([{ callback_query_id: queryId, text: "Only Bob can answer this." }]);
    expect(fake.api.callbackAnswers.get(queryId)).toEqual({ text: "Only Bob can answer this.", show_alert: false });
  });

  it("an empty notice answers with no text: the tapper's button stops spinning, nothing is shown", async () => {
    const { port, dm, queryId } = await aTap();
    await expect(port.send(reply(dm.id, "", { command: "answer_tap", reply_to: queryId }))).resolves.toEqual({ messageId: "" });
    expect(fake.api.callsOf("answerCallbackQuery").map((call) => call.params)).toEqual([{ callback_query_id: queryId }]);
    expect(fake.api.callbackAnswers.get(queryId)).toEqual({ text: undefined, show_alert: false });
  });

  it("a notice over 200 characters is cut to 200 with …, never inside an emoji", async () => {
    const { port, dm, queryId } = await aTap();
    const notice = `${"a".repeat(198)}🙂🙂 and more`;
    await port.send(reply(dm.id, notice, { command: "answer_tap", reply_to: queryId }));
    const text = fake.api.callbackAnswers.get(queryId)?.text;
    expect(text).toBe(`${"a".repeat(198)}…`);
    expect(text?.length).toBe(199);
  });

  it("a second answer, or an id Telegram never issued, is rejected in Telegram's words; an empty id without a call", async () => {
    const { port, records, dm, queryId } = await aTap();
    await port.send(reply(dm.id, "", { command: "answer_tap", reply_to: queryId }));
    const again = await refusedWith(port.send(reply(dm.id, "", { command: "answer_tap", reply_to: queryId })));
    expect([again.code, again.message]).toEqual(["rejected", "Telegram refused answerCallbackQuery (400): Bad Request: query is too old and response timeout expired or query ID is invalid"]);
    expect((await refusedWith(port.send(reply(dm.id, "", { command: "answer_tap", reply_to: "4999999999999999" })))).code).toBe("rejected");
    const calls = fake.api.callsOf("answerCallbackQuery").length;
    expect((await refusedWith(port.send(reply(dm.id, "", { command: "answer_tap", reply_to: "" })))).code).toBe("rejected");
    expect(fake.api.callsOf("answerCallbackQuery")).toHaveLength(calls);
    expect(records.filter((r) => r.msg === "telegram refused a reply").map((r) => [r.reason, r.method, r.status])).toEqual([
      ["rejected", "answerCallbackQuery", 400],
      ["rejected", "answerCallbackQuery", 400],
    ]);
  });

  it("the port says it has buttons", () => {
    expect(portOf().port.capabilities("telegram")).toMatchObject({ buttons: true });
  });
});
