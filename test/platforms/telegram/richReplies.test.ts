import { afterEach, describe, expect, it } from "vitest";
import type { TelegramConfig } from "../../../src/config/sections/telegram.js";
import { TelegramPort, type TelegramPortOptions } from "../../../src/platforms/telegram/index.js";
import { captureLogs } from "../../helpers/logCapture.js";
import { someChats, useFakeBotApi } from "../../fakes/telegram/fakeBotApiFixture.js";
import { refusedWith, reply } from "./replyFixtures.js";
import { telegramConfig } from "./telegramTestConfig.js";

// [telegram] rich_messages, as upstream's newer gateway: a plain reply with a heading or a table
// goes as sendRichMessage, and as the legacy-Markdown sendMessage when Telegram refuses it.

const fake = useFakeBotApi();
const ports: TelegramPort[] = [];
afterEach(async () => {
  await Promise.all(ports.splice(0).map((port) => port.close()));
});

function portOf(config: Partial<TelegramConfig> = {}, options: Partial<TelegramPortOptions> = {}) {
  const { logger, records } = captureLogs();
  const port = new TelegramPort({ config: telegramConfig(fake.api, config), logger, ...options });
  ports.push(port);
  return { port, records };
}

const PLAN = "## Plan\n\n1. read the logs\n2. fix the *bug*";
const TABLE = "| step | owner |\n|---|:-:|\n| deploy | ops |";

describe("TelegramPort.send: rich messages (rich_messages on, the default)", () => {
  it("a reply with a heading goes as sendRichMessage {markdown}, answered with Telegram's message id", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    const receipt = await port.send(reply(dm.id, PLAN));
    expect(fake.api.callsOf("sendRichMessage").map((call) => call.params)).toEqual([{ chat_id: dm.id, rich_message: { markdown: PLAN } }]);
    expect(fake.api.callsOf("sendMessage")).toEqual([]);
    const [shown] = fake.api.shown(dm.id);
    expect(shown).toMatchObject({ text: PLAN, rich: true, from_bot: true });
    expect(receipt).toEqual({ messageId: String(shown?.message_id) });
  });

  it("a table goes rich too; plain text, and a heading inside fenced code, go as sendMessage", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    const fenced = "```sh\n# install\nnpm ci\n```";
    for (const text of [TABLE, "*done*: see `notes.md`", fenced, "issue #12 fixed"]) await port.send(reply(dm.id, text));
    expect(fake.api.callsOf("sendRichMessage").map((call) => (call.params.rich_message as { markdown: string }).markdown)).toEqual([TABLE]);
    expect(fake.api.callsOf("sendMessage").map((call) => call.params.text)).toEqual(["*done*: see `notes.md`", fenced, "issue #12 fixed"]);
    expect(fake.api.shown(dm.id).map((shown) => shown.rich)).toEqual([true, false, false, false]);
  });

  it("quotes with reply_parameters and goes to the forum topic, as a plain send does", async () => {
    const { alice, forum, topic } = someChats(fake.api);
    const { port } = portOf();
    const asked = fake.api.from(alice).text(forum.id, "what's the plan?", { threadId: topic.message_thread_id }).message!;
    await port.send(reply(forum.id, PLAN, { thread: topic.message_thread_id, quote: String(asked.message_id) }));
    expect(fake.api.callsOf("sendRichMessage")[0]?.params).toMatchObject({
      message_thread_id: topic.message_thread_id,
      reply_parameters: { message_id: asked.message_id, allow_sending_without_reply: true },
    });
    expect(fake.api.shown(forum.id, { thread: topic.message_thread_id }).at(-1)).toMatchObject({ text: PLAN, rich: true, reply_to_message_id: asked.message_id });
  });

  it("edits stay editMessageText, a heading in the new text or not", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    const { messageId } = await port.send(reply(dm.id, "…"));
    await port.send(reply(dm.id, PLAN, { command: "edit_message", reply_to: messageId }));
    expect(fake.api.callsOf("sendRichMessage")).toEqual([]);
    expect(fake.api.callsOf("editMessageText").map((call) => call.params.text)).toEqual([PLAN]);
    expect(fake.api.shown(dm.id)).toMatchObject([{ rich: false, edits: 1 }]);
  });
});

describe("TelegramPort.send: rich_messages off", () => {
  it("a heading or a table goes as sendMessage in legacy Markdown", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf({ rich_messages: false });
    await port.send(reply(dm.id, PLAN));
    await port.send(reply(dm.id, TABLE));
    expect(fake.api.callsOf("sendRichMessage")).toEqual([]);
    expect(fake.api.callsOf("sendMessage").map((call) => [call.params.text, call.params.parse_mode])).toEqual([
      [PLAN, "Markdown"],
      [TABLE, "Markdown"],
    ]);
    expect(fake.api.shown(dm.id).map((shown) => shown.rich)).toEqual([false, false]);
  });
});

describe("TelegramPort.send: a rich message Telegram refuses", () => {
  it("is sent with sendMessage instead, quote and topic kept, logged once with Telegram's status and description", async () => {
    const { alice, forum, topic } = someChats(fake.api);
    const { port, records } = portOf();
    const asked = fake.api.from(alice).text(forum.id, "plan?", { threadId: topic.message_thread_id }).message!;
    fake.api.failNext("sendRichMessage", { error_code: 400, description: "Bad Request: RICH_MESSAGE_TOO_LARGE" });
    const receipt = await port.send(reply(forum.id, PLAN, { thread: topic.message_thread_id, quote: String(asked.message_id) }));
    expect(fake.api.callsOf("sendRichMessage").map((call) => call.status)).toEqual([400]);
    expect(fake.api.callsOf("sendMessage").map((call) => call.params)).toEqual([
      { chat_id: forum.id, text: PLAN, parse_mode: "Markdown", message_thread_id: topic.message_thread_id, reply_parameters: { message_id: asked.message_id, allow_sending_without_reply: true } },
    ]);
    const shown = fake.api.shown(forum.id, { thread: topic.message_thread_id }).at(-1);
    expect(shown).toMatchObject({ rich: false, reply_to_message_id: asked.message_id });
    expect(receipt).toEqual({ messageId: String(shown?.message_id) });
    expect(records.filter((r) => r.reason === "rich_message_failed")).toMatchObject([
      { level: 40, msg: "telegram refused a rich message; sent with sendMessage", status: 400, description: "Bad Request: RICH_MESSAGE_TOO_LARGE" },
    ]);
    expect(records.filter((r) => r.msg === "telegram refused a reply")).toEqual([]);
  });

  it("a refusal of the fallback too is the reply's failure, named after sendMessage", async () => {
    const { dm } = someChats(fake.api);
    const { port, records } = portOf();
    fake.api.failNext("sendRichMessage", { error_code: 403, description: "Forbidden: bot was blocked by the user" });
    fake.api.failNext("sendMessage", { error_code: 403, description: "Forbidden: bot was blocked by the user" });
    const error = await refusedWith(port.send(reply(dm.id, PLAN)));
    expect(error.message).toBe("Telegram refused sendMessage (403): Forbidden: bot was blocked by the user");
    expect(records.map((r) => r.reason).filter((reason) => reason !== undefined)).toEqual(["rich_message_failed", "rejected"]);
  });

  it("a 429 is 'not now', not 'not this': rate_limited, no fallback, and the retry goes rich", async () => {
    const { dm } = someChats(fake.api);
    const { port, records } = portOf();
    fake.api.failNext("sendRichMessage", { error_code: 429, retry_after: 2 });
    expect(await refusedWith(port.send(reply(dm.id, PLAN)))).toMatchObject({ code: "rate_limited", retryAfterMs: 2_000 });
    expect(fake.api.callsOf("sendMessage")).toEqual([]);
    expect(records.filter((r) => r.msg === "telegram refused a reply")).toMatchObject([{ reason: "rate_limited", method: "sendRichMessage", status: 429 }]);
    await port.send(reply(dm.id, PLAN));
    expect(fake.api.shown(dm.id)).toMatchObject([{ text: PLAN, rich: true }]);
    expect(records.filter((r) => r.reason === "rich_message_failed")).toEqual([]);
  });

  it("a 5xx may have posted it: unknown, never sent again as sendMessage", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    fake.api.failNext("sendRichMessage", { error_code: 502, description: "Bad Gateway" });
    const error = await refusedWith(port.send(reply(dm.id, PLAN)));
    expect(error.code).toBe("unknown");
    expect(error.message).toContain("sendRichMessage");
    expect(fake.api.callsOf("sendMessage")).toEqual([]);
  });

  it("the rich call and its fallback share one reply's time, so the worker's wait for the answer still outlasts it", async () => {
    const { dm } = someChats(fake.api);
    const { port, records } = portOf({}, { replyTimeoutMs: 2_400 });
    // Each call alone fits in the time; both together do not.
    fake.api.delay("sendRichMessage", 1_600);
    fake.api.failNext("sendRichMessage", { error_code: 400, description: "Bad Request: RICH_MESSAGE_TOO_LARGE" });
    fake.api.delay("sendMessage", 1_600);
    const error = await refusedWith(port.send(reply(dm.id, PLAN)));
    expect(error.code).toBe("unknown");
    expect(records.find((r) => r.msg === "telegram refused a reply")).toMatchObject({ reason: "unknown", method: "sendMessage", code: "aborted" });
  });
});
