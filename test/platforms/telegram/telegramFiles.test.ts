import { afterEach, describe, expect, it } from "vitest";
import type { OutboundAttachment, OutboundMessage } from "../../../operators/delivery/outboundMessage.js";
import { TELEGRAM_PHOTO_BYTES } from "../../../operators/delivery/files/index.js";
import { TelegramPort, type TelegramPortOptions } from "../../../src/platforms/telegram/index.js";
import { captureLogs } from "../../helpers/logCapture.js";
import { someChats, useFakeBotApi } from "../../fakes/telegram/fakeBotApiFixture.js";
import type { FakeBotApi } from "../../fakes/telegram/index.js";
import { pngHeader } from "../../fakes/telegram/imageSize.js";
import { refusedWith, reply } from "./replyFixtures.js";
import { telegramConfig } from "./telegramTestConfig.js";

// TelegramPort.send of a message with a file against the fake Bot API over HTTP: the bytes go up
// with grammY's InputFile as sendPhoto or sendDocument, the text as its caption, where a text
// would go; refusals as the SendError a gateway's ack would name.

/** Ports on `fake`, each closed after its test. */
function portsOn(fake: { readonly api: FakeBotApi }) {
  const ports: TelegramPort[] = [];
  afterEach(async () => {
    await Promise.all(ports.splice(0).map((port) => port.close()));
  });
  return (options: Partial<TelegramPortOptions> = {}) => {
    const { logger, records } = captureLogs();
    const port = new TelegramPort({ config: telegramConfig(fake.api), logger, ...options });
    ports.push(port);
    return { port, records };
  };
}

/** A send of `bytes` as `filename`, `text` its caption. */
function withFile(message: OutboundMessage, filename: string, bytes: Uint8Array, kind: OutboundAttachment["kind"], mime_type = kind === "image" ? "image/png" : "application/pdf"): OutboundMessage {
  return { ...message, attachment: { filename, mime_type, size: bytes.length, kind, ref: `ref-${filename}` } };
}

describe("TelegramPort.send: a message with a file", () => {
  const fake = useFakeBotApi();
  const portOf = portsOn(fake);

  it("posts a picture as a photo, its caption read as Markdown, and answers with the photo's message id", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    const picture = pngHeader(800, 600, 4_096);
    const receipt = await port.send(withFile(reply(dm.id, "the *Q3* chart"), "chart.png", picture, "image"), { wantAck: true, file: picture });
    const [call] = fake.api.callsOf("sendPhoto");
    expect(call?.params).toMatchObject({ chat_id: String(dm.id), caption: "the *Q3* chart", parse_mode: "Markdown" });
    const [shown] = fake.api.shown(dm.id);
    expect(receipt).toEqual({ messageId: String(shown?.message_id) });
    expect(shown).toMatchObject({ from_bot: true, caption: "the Q3 chart", file: { kind: "photo", size: picture.length } });
    expect(shown?.file?.bytes.equals(picture)).toBe(true);
    expect(fake.api.callsOf("sendDocument")).toEqual([]);
  });

  it("posts any other file as a document under its name, without a caption when the text is empty", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    const pdf = Buffer.from("%PDF-1.7 quarterly numbers");
    const receipt = await port.send(withFile(reply(dm.id, ""), "Q3 report.pdf", pdf, "document"), { wantAck: true, file: pdf });
    expect(fake.api.callsOf("sendDocument")[0]?.params).not.toHaveProperty("caption");
    expect(fake.api.callsOf("sendDocument")[0]?.params).not.toHaveProperty("parse_mode");
    const [shown] = fake.api.shown(dm.id);
    expect(shown).toMatchObject({ message_id: Number(receipt.messageId), caption: undefined, file: { kind: "document", name: "Q3 report.pdf", mime_type: "application/pdf" } });
    expect(shown?.file?.bytes.equals(pdf)).toBe(true);
  });

  it("sends a picture over Telegram's 10 MB for photos as a document, with no sendPhoto tried", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    const big = pngHeader(4_000, 3_000, TELEGRAM_PHOTO_BYTES + 1);
    const receipt = await port.send(withFile(reply(dm.id, "big"), "big.png", big, "image"), { wantAck: true, file: big });
    expect(fake.api.calls.map((call) => call.method)).toEqual(["sendDocument"]);
    expect(fake.api.shown(dm.id)).toMatchObject([{ message_id: Number(receipt.messageId), caption: "big", file: { kind: "document", name: "big.png", size: big.length } }]);
  });

  it("a picture Telegram refuses as a photo (its dimensions) goes again as a document, logged", async () => {
    const { dm } = someChats(fake.api);
    const { port, records } = portOf();
    const banner = pngHeader(9_500, 400, 2_048);
    const receipt = await port.send(withFile(reply(dm.id, "wide"), "banner.png", banner, "image"), { wantAck: true, file: banner });
    expect(fake.api.calls.map((call) => [call.method, call.status])).toEqual([
      ["sendPhoto", 400],
      ["sendDocument", 200],
    ]);
    expect(fake.api.shown(dm.id)).toMatchObject([{ message_id: Number(receipt.messageId), caption: "wide", file: { kind: "document", name: "banner.png" } }]);
    expect(records.filter((record) => record.reason === "photo_refused")).toMatchObject([{ level: 40, status: 400, description: "Bad Request: PHOTO_INVALID_DIMENSIONS", msg: "telegram refused a picture as a photo; sent as a document" }]);
  });

  it("a caption over 1024 characters: the file without one, then the text as a message of its own quoting the file", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    const long = `*Summary*\n${"word ".repeat(240)}`;
    const pdf = Buffer.from("%PDF");
    const receipt = await port.send(withFile(reply(dm.id, long), "summary.pdf", pdf, "document"), { wantAck: true, file: pdf });
    expect(fake.api.callsOf("sendDocument")[0]?.params).not.toHaveProperty("caption");
    const [file, text] = fake.api.shown(dm.id);
    expect(receipt).toEqual({ messageId: String(file?.message_id) });
    expect(file).toMatchObject({ caption: undefined, file: { name: "summary.pdf" } });
    expect(text).toMatchObject({ reply_to_message_id: file?.message_id, text: long.replace("*Summary*", "Summary").trim() });
    expect(fake.api.callsOf("sendMessage")[0]?.params).toMatchObject({ parse_mode: "Markdown" });
  });

  it("a plain-text message's caption goes without parse_mode, on the file and apart alike", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    const pdf = Buffer.from("%PDF");
    await port.send(withFile(reply(dm.id, "run *rm* now?", { plainText: true }), "a.pdf", pdf, "document"), { wantAck: true, file: pdf });
    await port.send(withFile(reply(dm.id, `run *rm* ${"x".repeat(1_100)}`, { plainText: true }), "b.pdf", pdf, "document"), { wantAck: true, file: pdf });
    expect(fake.api.callsOf("sendDocument")[0]?.params).not.toHaveProperty("parse_mode");
    expect(fake.api.callsOf("sendMessage")[0]?.params).not.toHaveProperty("parse_mode");
    expect(fake.api.shown(dm.id).map((message) => message.caption ?? message.text?.slice(0, 9))).toEqual(["run *rm* now?", undefined, "run *rm* "]);
  });

  it("a caption Telegram cannot parse as Markdown goes again as plain text, the file uploaded again", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    fake.api.failNext("sendDocument", { error_code: 400, description: "Bad Request: can't parse entities: Can't find end of the entity starting at byte offset 0" });
    const pdf = Buffer.from("%PDF");
    await port.send(withFile(reply(dm.id, "*done*"), "a.pdf", pdf, "document"), { wantAck: true, file: pdf });
    expect(fake.api.callsOf("sendDocument").map((call) => [call.params.parse_mode, call.status])).toEqual([
      ["Markdown", 400],
      [undefined, 200],
    ]);
    expect(fake.api.shown(dm.id)).toMatchObject([{ caption: "*done*", file: { size: pdf.length } }]);
  });

  it("goes into the topic and quotes the message as a text send does (message_thread_id, reply_parameters)", async () => {
    const { alice, forum, topic } = someChats(fake.api);
    const { port } = portOf();
    const asked = fake.api.from(alice).text(forum.id, "the chart?", { threadId: topic.message_thread_id }).message!;
    const picture = pngHeader(100, 100);
    await port.send(withFile(reply(forum.id, "here", { thread: topic.message_thread_id, quote: String(asked.message_id) }), "c.png", picture, "image"), { wantAck: true, file: picture });
    expect(fake.api.callsOf("sendPhoto")[0]?.params).toMatchObject({ message_thread_id: String(topic.message_thread_id), reply_parameters: JSON.stringify({ message_id: asked.message_id, allow_sending_without_reply: true }) });
    expect(fake.api.shown(forum.id, { thread: topic.message_thread_id }).at(-1)).toMatchObject({ caption: "here", reply_to_message_id: asked.message_id, file: { kind: "photo" } });
  });

  it("a message with buttons: the file, then its text with the buttons as a message of its own", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    const pdf = Buffer.from("%PDF");
    await port.send(withFile(reply(dm.id, "Merge it?", { choices: [{ label: "Yes", data: "y" }] }), "diff.pdf", pdf, "document"), { wantAck: true, file: pdf });
    const [file, question] = fake.api.shown(dm.id);
    expect(file).toMatchObject({ caption: undefined, keyboard: [] });
    expect(question).toMatchObject({ text: "Merge it?", reply_to_message_id: file?.message_id, keyboard: [[{ text: "Yes", callback_data: "y" }]] });
  });

  it("a send with a file but no bytes is refused (file_missing) without a call", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    const error = await refusedWith(port.send(withFile(reply(dm.id, "x"), "x.pdf", Buffer.from("x"), "document"), { wantAck: true }));
    expect(error.code).toBe("file_missing");
    expect(fake.api.calls).toEqual([]);
  });

  it("maps other refusals as for a text: 429 rate_limited, a 5xx unknown; a failed caption after the file is unknown, never sent again", async () => {
    const { dm } = someChats(fake.api);
    const { port } = portOf();
    const pdf = Buffer.from("%PDF");
    const send = (text: string) => port.send(withFile(reply(dm.id, text), "a.pdf", pdf, "document"), { wantAck: true, file: pdf });
    fake.api.failNext("sendDocument", { error_code: 429, retry_after: 3 });
    expect(await refusedWith(send("x"))).toMatchObject({ code: "rate_limited", retryAfterMs: 3_000 });
    fake.api.failNext("sendPhoto", { error_code: 502, description: "Bad Gateway" });
    const picture = pngHeader(10, 10);
    expect((await refusedWith(port.send(withFile(reply(dm.id, "p"), "p.png", picture, "image"), { wantAck: true, file: picture }))).code).toBe("unknown");
    fake.api.failNext("sendMessage", { error_code: 429, retry_after: 1 });
    const apart = await refusedWith(send("y".repeat(1_500)));
    expect(apart.code).toBe("unknown");
    expect(fake.api.shown(dm.id).map((message) => message.file?.name)).toEqual(["a.pdf"]);
  });

  it("says it posts files: outboundFiles in its capabilities", () => {
    expect(portOf().port.capabilities("telegram")).toMatchObject({ outboundFiles: true });
  });
});

describe("TelegramPort.send: a file over the Bot API's upload limit", () => {
  /** The fake's limit here: small, so a file over it costs no 50 MB (telegramFiles.load.test.ts sends 60 MB to the real one). */
  const UPLOAD_LIMIT = 256 * 1024;
  const fake = useFakeBotApi({ uploadLimitBytes: UPLOAD_LIMIT });
  const portOf = portsOn(fake);

  it("a file Telegram refuses as too big (413) rejects with file_too_large, logged, and nothing is in the chat", async () => {
    const { dm } = someChats(fake.api);
    const { port, records } = portOf();
    const big = new Uint8Array(UPLOAD_LIMIT + 1);
    const error = await refusedWith(port.send(withFile(reply(dm.id, "the dump"), "dump.bin", big, "document"), { wantAck: true, file: big }));
    expect(error.code).toBe("file_too_large");
    expect(error.retryAfterMs).toBeUndefined();
    expect(fake.api.callsOf("sendDocument").map((call) => call.status)).toEqual([413]);
    expect(fake.api.shown(dm.id)).toEqual([]);
    expect(records.filter((record) => record.msg === "telegram refused a reply")).toMatchObject([{ reason: "file_too_large", method: "sendDocument", status: 413 }]);
  });

});
