import { describe, expect, it } from "vitest";
import { API } from "@discordjs/core";
import { refusal, someGuild, TOKEN, useFakeDiscord } from "./fakeDiscordFixture.js";
import { UPLOAD_LIMIT_BYTES } from "./index.js";

/** Uploading files with a message (docs: Reference › Uploading Files; Create Message). */
describe("fake Discord: uploads", () => {
  const discord = useFakeDiscord();
  const api = () => new API(discord.rest);

  /** A multipart POST made by hand, for bodies @discordjs/rest never builds. */
  async function postForm(channelId: string, form: FormData): Promise<{ status: number; body: { code?: number; errors?: unknown } }> {
    const response = await fetch(`${discord.fake.api}/v10/channels/${channelId}/messages`, { method: "POST", headers: { authorization: `Bot ${TOKEN}` }, body: form });
    return { status: response.status, body: (await response.json()) as { code?: number; errors?: unknown } };
  }

  it("shows the file the way attachments names it, its exact bytes, with the content as its caption", async () => {
    const { general } = someGuild(discord.fake);
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x10]);
    const sent = await api().channels.createMessage(general.id, {
      content: "the chart",
      attachments: [{ id: 0, filename: "chart.png" }],
      files: [{ name: "upload.bin", data: bytes, contentType: "image/png" }],
    });
    expect(sent.attachments).toMatchObject([{ filename: "chart.png", size: 7, content_type: "image/png" }]);
    expect(discord.fake.shown(general.id)).toMatchObject([{ content: "the chart", attachments: ["chart.png"], files: [{ filename: "chart.png", contentType: "image/png", bytes }] }]);
    expect(discord.fake.callsOf("createMessage")[0]).toMatchObject({ files: ["upload.bin"], body: { attachments: [{ id: 0, filename: "chart.png" }] } });
  });

  it("refuses an attachments id that names no uploaded files[n] (50035), and nothing is posted", async () => {
    const { general } = someGuild(discord.fake);
    const error = await refusal(api().channels.createMessage(general.id, { attachments: [{ id: 1, filename: "a.txt" }], files: [{ name: "a.txt", data: Buffer.from("a") }] }));
    expect(error.rawError).toMatchObject({ code: 50035, errors: { attachments: { "0": { id: { _errors: [{ code: "ATTACHMENT_NOT_FOUND" }] } } } } });
    const blankName = await refusal(api().channels.createMessage(general.id, { attachments: [{ id: 0, filename: "" }], files: [{ name: "a.txt", data: Buffer.from("a") }] }));
    expect(blankName.rawError).toMatchObject({ code: 50035, errors: { attachments: { "0": { filename: { _errors: [{ code: "BASE_TYPE_REQUIRED" }] } } } } });
    expect(discord.fake.shown(general.id)).toEqual([]);
  });

  it("refuses a file part without a filename, a part not named files[n], a files[n] twice and payload_json that is no JSON", async () => {
    const { general } = someGuild(discord.fake);
    const payload = JSON.stringify({ content: "x", attachments: [{ id: 0, filename: "a.txt" }] });

    const noFilename = new FormData();
    noFilename.append("payload_json", payload);
    noFilename.append("files[0]", "bytes without a filename");
    expect(await postForm(general.id, noFilename)).toMatchObject({ status: 400, body: { code: 50035, errors: { "files[0]": { _errors: [{ code: "FILE_FIELD_WITHOUT_FILENAME" }] } } } });

    const wrongName = new FormData();
    wrongName.append("payload_json", JSON.stringify({ content: "x" }));
    wrongName.append("file", new Blob(["a"]), "a.txt");
    expect(await postForm(general.id, wrongName)).toMatchObject({ status: 400, body: { code: 50035, errors: { file: { _errors: [{ code: "FILE_FIELD_NAME_INVALID" }] } } } });

    const twice = new FormData();
    twice.append("payload_json", payload);
    twice.append("files[0]", new Blob(["a"]), "a.txt");
    twice.append("files[0]", new Blob(["b"]), "b.txt");
    expect(await postForm(general.id, twice)).toMatchObject({ status: 400, body: { code: 50035, errors: { "files[0]": { _errors: [{ code: "FILE_FIELD_DUPLICATE" }] } } } });

    const brokenJson = new FormData();
    brokenJson.append("payload_json", "{content:");
    brokenJson.append("files[0]", new Blob(["a"]), "a.txt");
    expect(await postForm(general.id, brokenJson)).toMatchObject({ status: 400, body: { code: 50109 } });
    expect(discord.fake.shown(general.id)).toEqual([]);
  });
});

describe("fake Discord: who may upload", () => {
  const discord = useFakeDiscord();

  it("refuses a file where the bot lacks ATTACH_FILES (50013), and takes text there", async () => {
    const { general } = someGuild(discord.fake);
    discord.fake.restrict(general.id, { attachFiles: false });
    const api = new API(discord.rest);
    expect(await refusal(api.channels.createMessage(general.id, { content: "x", files: [{ name: "a.txt", data: Buffer.from("a") }] }))).toMatchObject({ status: 403, code: 50013 });
    await api.channels.createMessage(general.id, { content: "words only" });
    expect(discord.fake.botTexts(general.id)).toEqual(["words only"]);
  });
});

/** The limit itself at its real size, 10 MiB: uploads.load.test.ts. */
describe("fake Discord: the upload limit", () => {
  const discord = useFakeDiscord({ uploadLimitBytes: 1024 });

  it("takes a file of exactly the limit and refuses one byte more with 413, code 40005; nothing of it is posted", async () => {
    const { general } = someGuild(discord.fake);
    const api = new API(discord.rest);
    await api.channels.createMessage(general.id, { attachments: [{ id: 0, filename: "fits.bin" }], files: [{ name: "fits.bin", data: Buffer.alloc(1024, 7) }] });
    const error = await refusal(api.channels.createMessage(general.id, { content: "too big", attachments: [{ id: 0, filename: "over.bin" }], files: [{ name: "over.bin", data: Buffer.alloc(1025) }] }));
    expect([error.status, error.rawError]).toEqual([413, { message: "Request entity too large", code: 40005 }]);
    expect(discord.fake.shown(general.id).map((message) => [message.content, message.attachments, message.files[0]!.bytes.length])).toEqual([["", ["fits.bin"], 1024]]);
  });

  it("is 10 MiB unless a test says otherwise (a server without boosts)", () => {
    expect(UPLOAD_LIMIT_BYTES).toBe(10 * 1024 * 1024);
  });
});
