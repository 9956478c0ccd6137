import type { MessageEntity } from "grammy/types";
import { afterEach, describe, expect, it } from "vitest";
import type { OutboundChoice } from "../../../operators/delivery/outboundMessage.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import type { TelegramConfig } from "../../../src/config/sections/telegram.js";
import { TelegramPort } from "../../../src/platforms/telegram/index.js";
import { captureLogs } from "../../helpers/logCapture.js";
import { someChats, until, useFakeBotApi } from "../../fakes/telegram/fakeBotApiFixture.js";
import { reply } from "./replyFixtures.js";
import { telegramConfig } from "./telegramTestConfig.js";

// OutboundMessage.plainText on the Telegram port, against the fake Bot API over HTTP: a question's
// messages go without parse_mode (and never rich), so the chat shows every `*`, `_`, backtick and
// bracket as the agent wrote them; the buttons and the remembered keyboard work as for any message.

const fake = useFakeBotApi({ webhookRetryDelayMs: 50 });
const ports: TelegramPort[] = [];
afterEach(async () => {
  await Promise.all(ports.splice(0).map((port) => port.close()));
});

/** Legacy Markdown would make bold, italic, code and a link of this, and drop their markers. */
const QUOTED = "Run `rm -rf build` as *root* in _x_? See [a](http://x) & <@U1> @everyone &amp; <b>b</b>";
/** What the codex-acp test saw as `$((67))`: the `*`s paired across the command. */
const COMMAND = "Allow `echo $((6*7))`?\n\nkind: execute *risky*";
/** Entities that would change how the text looks (as opposed to Telegram's own mention/url/hashtag detection). */
const FORMATTING = new Set<MessageEntity["type"]>(["bold", "italic", "underline", "strikethrough", "spoiler", "code", "pre", "text_link", "text_mention", "blockquote", "expandable_blockquote", "custom_emoji"]);
const CHOICES: readonly OutboundChoice[] = [
  { label: "Yes, proceed", data: "q:7:0" },
  { label: "No", data: "q:7:1" },
];
const KEYBOARD = [
  [
    { text: "Yes, proceed", callback_data: "q:7:0" },
    { text: "No", callback_data: "q:7:1" },
  ],
];

function portOf(overrides: Partial<TelegramConfig> = {}) {
  const { logger } = captureLogs();
  const port = new TelegramPort({ config: telegramConfig(fake.api, overrides), logger, backoff: { initialMs: 50, maxMs: 200, unauthorizedMs: 200 } });
  ports.push(port);
  return port;
}

/** The formatting Telegram applied to a message the chat shows. */
function formattingOf(shown: { readonly message: { readonly entities?: readonly MessageEntity[] } }): MessageEntity["type"][] {
  return (shown.message.entities ?? []).map((entity) => entity.type).filter((type) => FORMATTING.has(type));
}

describe("TelegramPort.send: plainText", () => {
  it("a plain-text message goes without parse_mode and the chat shows it character for character; the same text without plainText loses its markers", async () => {
    const { dm } = someChats(fake.api);
    const port = portOf();
    await port.send(reply(dm.id, QUOTED, { plainText: true }));
    await port.send(reply(dm.id, COMMAND, { plainText: true }));
    await port.send(reply(dm.id, QUOTED));
    expect(fake.api.callsOf("sendMessage").map((call) => call.params)).toEqual([
      { chat_id: dm.id, text: QUOTED },
      { chat_id: dm.id, text: COMMAND },
      { chat_id: dm.id, text: QUOTED, parse_mode: "Markdown" },
    ]);
    const [quoted, command, markdown] = fake.api.shown(dm.id);
    expect([quoted?.text, command?.text]).toEqual([QUOTED, COMMAND]);
    expect([formattingOf(quoted!), formattingOf(command!)]).toEqual([[], []]);
    // The contrast: read as Markdown, the command and the link are not what was written.
    expect(markdown?.text).toBe("Run rm -rf build as root in x? See a & <@U1> @everyone &amp; <b>b</b>");
    expect(formattingOf(markdown!)).toEqual(["code", "bold", "italic", "text_link"]);
  });

  it("with rich_messages on, a plain-text message with a heading and a table still goes as sendMessage, shown as written", async () => {
    const { dm } = someChats(fake.api);
    const port = portOf({ rich_messages: true });
    const text = "## Permission\n\n| a | b |\n| --- | --- |\n| `*x*` | _y_ |";
    await port.send(reply(dm.id, text, { plainText: true }));
    expect(fake.api.callsOf("sendRichMessage")).toEqual([]);
    expect(fake.api.callsOf("sendMessage").map((call) => call.params)).toEqual([{ chat_id: dm.id, text }]);
    expect(fake.api.shown(dm.id)).toMatchObject([{ text, rich: false }]);
  });

  it("a plain-text question keeps its buttons, in a topic under a quoted message, and a tap on them still comes in", async () => {
    const { alice, forum, topic } = someChats(fake.api);
    const port = portOf();
    const events: GatewayEvent[] = [];
    port.events.subscribe((event) => events.push(event));
    await port.prepare();
    port.start();
    await until(() => port.isConnected);
    const theirs = fake.api.from(alice).text(forum.id, "build it @turnstream_test_bot", { threadId: topic.message_thread_id }).message!;
    await until(() => events.length === 1);
    port.settled(events[0]!);
    const { messageId } = await port.send(reply(forum.id, COMMAND, { thread: topic.message_thread_id, quote: String(theirs.message_id), choices: CHOICES, plainText: true }));
    expect(fake.api.callsOf("sendMessage").at(-1)?.params).toEqual({
      chat_id: forum.id,
      text: COMMAND,
      message_thread_id: topic.message_thread_id,
      reply_parameters: { message_id: theirs.message_id, allow_sending_without_reply: true },
      reply_markup: { inline_keyboard: KEYBOARD },
    });
    expect(fake.api.shown(forum.id, { thread: topic.message_thread_id }).at(-1)).toMatchObject({ message_id: Number(messageId), text: COMMAND, reply_to_message_id: theirs.message_id, keyboard: KEYBOARD });
    fake.api.from(alice).press(forum.id, Number(messageId), "q:7:1");
    await until(() => events.length === 2);
    expect(events[1]).toMatchObject({ message_id: messageId, tap: { data: "q:7:1" } });
    port.settled(events[1]!);
  });
});

describe("TelegramPort.send: plain-text edits", () => {
  it("an edit without choices keeps the remembered buttons, one with choices: [] removes them, each without parse_mode and shown as written", async () => {
    const { dm } = someChats(fake.api);
    const port = portOf();
    const id = (await port.send(reply(dm.id, COMMAND, { choices: CHOICES, plainText: true }))).messageId;
    const pending = `${COMMAND}\n(4 min left)`;
    await port.send(reply(dm.id, pending, { command: "edit_message", reply_to: id, plainText: true }));
    expect(fake.api.shown(dm.id)).toMatchObject([{ text: pending, keyboard: KEYBOARD }]);
    const answered = `${COMMAND}\n→ Yes, proceed (*alice_tg*)`;
    await expect(port.send(reply(dm.id, answered, { command: "edit_message", reply_to: id, choices: [], plainText: true }))).resolves.toEqual({ messageId: id });
    expect(fake.api.callsOf("editMessageText").map((call) => call.params)).toEqual([
      { chat_id: dm.id, message_id: Number(id), text: pending, reply_markup: { inline_keyboard: KEYBOARD } },
      { chat_id: dm.id, message_id: Number(id), text: answered, reply_markup: { inline_keyboard: [] } },
    ]);
    const [shown] = fake.api.shown(dm.id);
    expect(shown).toMatchObject({ text: answered, keyboard: [], edits: 2 });
    expect(formattingOf(shown!)).toEqual([]);
    // The same edit again ("not modified") is success, and the buttons stay forgotten.
    await expect(port.send(reply(dm.id, answered, { command: "edit_message", reply_to: id, choices: [], plainText: true }))).resolves.toEqual({ messageId: id });
    await port.send(reply(dm.id, `${answered}.`, { command: "edit_message", reply_to: id, plainText: true }));
    expect(fake.api.callsOf("editMessageText").at(-1)?.params).toEqual({ chat_id: dm.id, message_id: Number(id), text: `${answered}.` });
    expect(fake.api.shown(dm.id)).toMatchObject([{ text: `${answered}.`, keyboard: [] }]);
  });

  it("a question sent as Markdown and marked expired in plain text: the edit shows the text as written, buttons gone", async () => {
    const { dm } = someChats(fake.api);
    const port = portOf();
    const id = (await port.send(reply(dm.id, "Run `ls`?", { choices: CHOICES }))).messageId;
    const expired = "This question expired: *no* answer was taken.";
    await port.send(reply(dm.id, expired, { command: "edit_message", reply_to: id, choices: [], plainText: true }));
    expect(fake.api.callsOf("editMessageText")[0]?.params).not.toHaveProperty("parse_mode");
    expect(fake.api.shown(dm.id)).toMatchObject([{ text: expired, keyboard: [] }]);
  });
});

describe("TelegramPort.send: a plain-text answer_tap", () => {
  it("shows the notice as written (answerCallbackQuery has no parse mode)", async () => {
    const { alice, dm } = someChats(fake.api);
    const port = portOf();
    const id = Number((await port.send(reply(dm.id, COMMAND, { choices: CHOICES, plainText: true }))).messageId);
    const queryId = fake.api.from(alice).press(dm.id, id, "q:7:0").callback_query!.id;
    await port.send(reply(dm.id, "Only *bob_tg* can answer this.", { command: "answer_tap", reply_to: queryId, plainText: true }));
    expect(fake.api.callsOf("answerCallbackQuery").map((call) => call.params)).toEqual([{ callback_query_id: queryId, text: "Only *bob_tg* can answer this." }]);
    expect(fake.api.callbackAnswers.get(queryId)).toEqual({ text: "Only *bob_tg* can answer this.", show_alert: false });
  });
});
