import { InputFile } from "grammy";
import { describe, expect, it } from "vitest";
import { refusal, someChats, TOKEN, useFakeBotApi } from "./fakeBotApiFixture.js";
import { pngHeader } from "./imageSize.js";
import { PHOTO_LIMIT_BYTES } from "./sentMedia.js";

// sendPhoto and sendDocument as the Bot API takes an upload: grammY's multipart body read as the
// Bot API server reads it, each parameter checked, the file kept with its exact bytes in the chat.

const UPLOAD_LIMIT = 64 * 1024;

describe("fake Bot API: files the bot sends", () => {
  const fake = useFakeBotApi({ uploadLimitBytes: UPLOAD_LIMIT });

  it("sendPhoto from grammY's InputFile: the chat shows the photo (its bytes exact) and its caption, in order with texts", async () => {
    const { dm } = someChats(fake.api);
    const picture = pngHeader(640, 480, 2_000);
    await fake.client.sendMessage(dm.id, "before");
    const sent = await fake.client.sendPhoto(dm.id, new InputFile(picture, "chart.png"), { caption: "*Q3* chart", parse_mode: "Markdown" });
    await fake.client.sendMessage(dm.id, "after");
    expect(fake.api.callsOf("sendPhoto")[0]?.encoding).toBe("multipart");
    expect(sent.photo.at(-1)).toMatchObject({ width: 640, height: 480, file_size: 2_000 });
    expect(sent.caption_entities).toEqual([{ type: "bold", offset: 0, length: 2 }]);
    const shown = fake.api.shown(dm.id);
    expect(shown.map((message) => [message.text, message.caption, message.file?.kind])).toEqual([
      ["before", undefined, undefined],
      [undefined, "Q3 chart", "photo"],
      ["after", undefined, undefined],
    ]);
    expect(shown[1]?.file).toMatchObject({ name: undefined, mime_type: "image/png", size: 2_000 });
    expect(shown[1]?.file?.bytes.equals(picture)).toBe(true);
  });

  it("sendDocument keeps the file's name (any script, spaces) and its media type by extension; getFile serves its bytes", async () => {
    const { dm } = someChats(fake.api);
    const bytes = Buffer.from("%PDF-1.7 the report");
    const sent = await fake.client.sendDocument(dm.id, new InputFile(bytes, "Q3 отчёт.pdf"));
    expect(sent.document).toMatchObject({ file_name: "Q3 отчёт.pdf", mime_type: "application/pdf", file_size: bytes.length });
    expect(fake.api.shown(dm.id)[0]).toMatchObject({ caption: undefined, file: { kind: "document", name: "Q3 отчёт.pdf", size: bytes.length } });
    const path = (await fake.client.getFile(sent.document.file_id)).file_path!;
    expect(Buffer.from(await (await fetch(`${fake.api.root}/file/bot${TOKEN}/${path}`)).arrayBuffer()).equals(bytes)).toBe(true);
  });

  it("puts a file in a forum topic and under the message it quotes, as sendMessage does", async () => {
    const { alice, forum, topic } = someChats(fake.api);
    const asked = fake.api.from(alice).text(forum.id, "the numbers?", { threadId: topic.message_thread_id }).message!;
    await fake.client.sendDocument(forum.id, new InputFile(Buffer.from("a,b\n"), "numbers.csv"), {
      message_thread_id: topic.message_thread_id,
      reply_parameters: { message_id: asked.message_id },
    });
    expect(fake.api.shown(forum.id, { thread: topic.message_thread_id }).at(-1)).toMatchObject({ reply_to_message_id: asked.message_id, file: { name: "numbers.csv", mime_type: "text/csv" } });
  });

  it("takes the file from a multipart part named after the parameter, or attach://<part>, quoted file names too", async () => {
    const { dm } = someChats(fake.api);
    const direct = new FormData();
    direct.append("chat_id", String(dm.id));
    direct.append("document", new Blob([Buffer.from("one")]), 'notes "final".txt');
    const attached = new FormData();
    attached.append("chat_id", String(dm.id));
    attached.append("photo", "attach://pic");
    attached.append("pic", new Blob([pngHeader(10, 10)]), "pic.png");
    const answers = await Promise.all([
      fetch(`${fake.api.root}/bot${TOKEN}/sendDocument`, { method: "POST", body: direct }),
      fetch(`${fake.api.root}/bot${TOKEN}/sendPhoto`, { method: "POST", body: attached }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(new Set(fake.api.shown(dm.id).map((message) => message.file?.kind))).toEqual(new Set(["document", "photo"]));
  });

  it("refuses a call without its file, or naming a part that is not there, or a file id it does not know", async () => {
    const { dm } = someChats(fake.api);
    expect((await refusal(fake.client.raw.sendPhoto({ chat_id: dm.id } as never))).description).toBe("Bad Request: there is no photo in the request");
    const noPart = new FormData();
    noPart.append("chat_id", String(dm.id));
    noPart.append("document", "attach://missing");
    const answer = await fetch(`${fake.api.root}/bot${TOKEN}/sendDocument`, { method: "POST", body: noPart });
    expect(await answer.json()).toEqual({ ok: false, error_code: 400, description: "Bad Request: there is no document in the request" });
    expect((await refusal(fake.client.sendDocument(dm.id, "BQACAgIAAxkBAAIBnope"))).description).toBe("Bad Request: wrong file identifier/HTTP URL specified");
  });

  it("checks the other parameters as documented: chat_id, caption (1024 characters, its parse mode), message_thread_id, reply_parameters", async () => {
    const { dm } = someChats(fake.api);
    const file = () => new InputFile(Buffer.from("x"), "x.txt");
    const refused = async (call: Promise<unknown>) => (await refusal(call)).description;
    expect(await refused(fake.client.raw.sendDocument({ document: file() } as never))).toBe("Bad Request: chat_id is empty");
    expect(await refused(fake.client.sendDocument(dm.id, file(), { caption: "x".repeat(1025) }))).toBe("Bad Request: message caption is too long");
    await expect(fake.client.sendDocument(dm.id, file(), { caption: `*${"x".repeat(1024)}*`, parse_mode: "Markdown" })).resolves.toBeDefined();
    expect(await refused(fake.client.sendDocument(dm.id, file(), { caption: "x", parse_mode: "Markdown2" as never }))).toBe("Bad Request: unsupported parse_mode");
    expect(await refused(fake.client.sendDocument(dm.id, file(), { caption: "*open", parse_mode: "Markdown" }))).toMatch(/^Bad Request: can't parse entities: /);
    expect(await refused(fake.client.sendDocument(dm.id, file(), { message_thread_id: "seven" as never }))).toBe('Bad Request: parameter "message_thread_id" must be an Integer');
    expect(await refused(fake.client.sendDocument(dm.id, file(), { message_thread_id: 7 }))).toBe("Bad Request: message thread not found");
    expect(await refused(fake.client.sendDocument(dm.id, file(), { reply_parameters: { message_id: 999 } }))).toBe("Bad Request: message to be replied not found");
    expect(await refused(fake.client.sendDocument(dm.id, file(), { reply_parameters: "{oops" as never }))).toBe("Bad Request: can't parse reply parameters JSON object");
    expect(fake.api.shown(dm.id)).toHaveLength(1);
  });

  it("refuses an empty file, and a file over the upload limit with 413 Request Entity Too Large (a body far over it unread)", async () => {
    const { dm } = someChats(fake.api);
    expect((await refusal(fake.client.sendDocument(dm.id, new InputFile(new Uint8Array(0), "empty.txt")))).description).toBe("Bad Request: file must be non-empty");
    const over = await refusal(fake.client.sendDocument(dm.id, new InputFile(new Uint8Array(UPLOAD_LIMIT + 1), "big.bin")));
    expect([over.error_code, over.description]).toEqual([413, "Request Entity Too Large"]);
    const farOver = await refusal(fake.client.sendDocument(dm.id, new InputFile(new Uint8Array(UPLOAD_LIMIT + 2 * 1024 * 1024), "bigger.bin")));
    expect([farOver.error_code, farOver.description]).toEqual([413, "Request Entity Too Large"]);
    expect(fake.api.callsOf("sendDocument").map((call) => call.status)).toEqual([400, 413, 413]);
    expect(fake.api.shown(dm.id)).toEqual([]);
  });

  it("refuses as a photo what Telegram cannot take as one: no picture, dimensions past its bounds", async () => {
    const { dm } = someChats(fake.api);
    const photo = async (bytes: Buffer) => (await refusal(fake.client.sendPhoto(dm.id, new InputFile(bytes, "p.png")))).description;
    expect(await photo(Buffer.from("not a picture"))).toBe("Bad Request: IMAGE_PROCESS_FAILED");
    expect(await photo(pngHeader(9_000, 1_001))).toBe("Bad Request: PHOTO_INVALID_DIMENSIONS");
    expect(await photo(pngHeader(2_100, 100))).toBe("Bad Request: PHOTO_INVALID_DIMENSIONS");
    await expect(fake.client.sendPhoto(dm.id, new InputFile(pngHeader(2_000, 100), "p.png"))).resolves.toBeDefined();
  });
});

describe("fake Bot API: a photo over Telegram's 10 MB", () => {
  const fake = useFakeBotApi();

  it("is refused as a photo in Telegram's words, and taken as a document", async () => {
    const { dm } = someChats(fake.api);
    const big = pngHeader(1_000, 800, PHOTO_LIMIT_BYTES + 1);
    expect((await refusal(fake.client.sendPhoto(dm.id, new InputFile(big, "big.png")))).description).toBe(
      `Bad Request: file of size ${PHOTO_LIMIT_BYTES + 1} bytes is too big for a photo; the maximum size is ${PHOTO_LIMIT_BYTES} bytes`,
    );
    await fake.client.sendDocument(dm.id, new InputFile(big, "big.png"));
    expect(fake.api.shown(dm.id).map((message) => [message.file?.kind, message.file?.mime_type, message.file?.size])).toEqual([["document", "image/png", PHOTO_LIMIT_BYTES + 1]]);
  });
});

describe("fake Bot API: multipart bodies read as the Bot API server reads them", () => {
  const fake = useFakeBotApi();

  const post = (body: string) =>
    fetch(`${fake.api.root}/bot${TOKEN}/sendMessage`, { method: "POST", headers: { "content-type": "multipart/form-data; boundary=XyZ" }, body }).then(async (answer) => [answer.status, ((await answer.json()) as { description?: string }).description]);

  it("reads grammY's unquoted header values, and refuses a part that is no form-data or has no name", async () => {
    const { dm } = someChats(fake.api);
    const part = (headers: string, value: string) => `--XyZ\r\n${headers}\r\n\r\n${value}\r\n`;
    const ok = part(`content-disposition:form-data;name=chat_id`, String(dm.id)) + part(`content-disposition:form-data;name="text"`, "hi") + "--XyZ--\r\n";
    expect(await post(ok)).toEqual([200, undefined]);
    expect(await post(part("content-disposition: attachment; name=text", "hi") + "--XyZ--\r\n")).toEqual([400, "Bad Request: expected form-data content disposition"]);
    expect(await post(part('content-disposition: form-data; filename="a.txt"', "hi") + "--XyZ--\r\n")).toEqual([400, "Bad Request: field name in multipart/form-data not found"]);
    expect(await post("--XyZ\r\ncontent-disposition: form-data; name=text\r\n\r\nno closing boundary")).toEqual([400, "Bad Request: can't parse multipart/form-data body"]);
    expect(fake.api.botTexts(dm.id)).toEqual(["hi"]);
  });
});
