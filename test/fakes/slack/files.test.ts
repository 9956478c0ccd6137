import { describe, expect, it } from "vitest";
import { refusal, someConversations, useFakeSlack } from "./slackFixture.js";
import { UPLOAD_LIMIT_BYTES } from "./index.js";

/** What a POST to an upload URL answers: the status and the text. */
async function upload(url: string, body: string | FormData, init: RequestInit = {}): Promise<[number, string]> {
  const response = await fetch(url, { method: "POST", body, ...init });
  return [response.status, await response.text()];
}

describe("fake Slack: uploading a file (files.getUploadURLExternal, the upload URL, files.completeUploadExternal)", () => {
  const slack = useFakeSlack();

  it("filesUploadV2 into a thread: one file_share message by the bot, the comment its text, the file's exact bytes, downloadable with the token", async () => {
    const { fake, web } = slack;
    const { general, alice } = someConversations(fake);
    const parent = fake.from(alice).message(general.id, "a chart please");
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
    const result = await web.filesUploadV2({ channel_id: general.id, thread_ts: parent.ts, file: bytes, filename: "chart.png", initial_comment: "*the* chart" });
    const [opened] = fake.callsOf("files.getUploadURLExternal");
    expect(opened!.params).toMatchObject({ filename: "chart.png", length: "8" });
    const fileId = opened!.response!.file_id as string;
    expect(opened!.response!.upload_url).toMatch(new RegExp(`^${fake.root}/upload/v1/[0-9a-f]+$`));
    expect(fake.uploads.all).toMatchObject([{ fileId, length: 8, encoding: "multipart", completed: true }]);
    expect(fake.callsOf("files.completeUploadExternal")[0]!.params).toMatchObject({ channel_id: general.id, thread_ts: parent.ts, initial_comment: "*the* chart" });
    // The documented answer: ids and titles, no message ts.
    expect(result.files).toEqual([expect.objectContaining({ ok: true, files: [{ id: fileId, title: "chart.png" }] })]);
    const shown = fake.shown(general.id, { thread: parent.ts });
    expect(shown.map((message) => [message.from_bot, message.text, message.subtype, message.files.map((file) => [file.id, file.name, file.mimetype])])).toEqual([
      [false, "a chart please", undefined, []],
      [true, "*the* chart", "file_share", [[fileId, "chart.png", "image/png"]]],
    ]);
    expect(shown[1]!.files[0]!.bytes).toEqual(bytes);
    expect(fake.seen(shown[1]!.message).styles).toEqual([{ style: "bold", text: "the" }]);
    const url = (shown[1]!.message.files![0] as { url_private_download: string }).url_private_download;
    const download = await fetch(url, { headers: { authorization: `Bearer ${fake.botToken}` } });
    expect(Buffer.from(await download.arrayBuffer())).toEqual(bytes);
  });

  it("getUploadURLExternal needs a filename and a whole, positive length (0 is missing_argument), alt_txt within 1000, and files:write", async () => {
    const { web } = slack;
    const open = (args: Record<string, unknown>) => web.files.getUploadURLExternal(args as never);
    await expect(open({ length: 3 })).rejects.toMatchObject({ data: { error: "invalid_arguments", response_metadata: { messages: ["[ERROR] missing required field: filename [json-pointer:/filename]"] } } });
    await expect(open({ filename: "a.txt" })).rejects.toMatchObject({ data: { error: "invalid_arguments", response_metadata: { messages: ["[ERROR] missing required field: length [json-pointer:/length]"] } } });
    expect(await refusal(open({ filename: "a.txt", length: "three" }))).toBe("invalid_arguments");
    expect(await refusal(open({ filename: "a.txt", length: 2.5 }))).toBe("invalid_arguments");
    expect(await refusal(open({ filename: "a.txt", length: -1 }))).toBe("invalid_arguments");
    expect(await refusal(open({ filename: "a.txt", length: 0 }))).toBe("missing_argument");
    expect(await refusal(open({ filename: "a.png", length: 3, alt_txt: "x".repeat(1001) }))).toBe("alt_txt_too_large");
    expect(await refusal(open({ filename: "a.bin", length: UPLOAD_LIMIT_BYTES + 1 }))).toBe("file_upload_size_restricted");
    await expect(open({ filename: "a.bin", length: UPLOAD_LIMIT_BYTES })).resolves.toMatchObject({ ok: true, file_id: expect.stringMatching(/^F/) });
  });

  it("the upload URL takes one POST of exactly length bytes, raw or as a form's one file, without a token; anything else is refused", async () => {
    const { web, fake } = slack;
    const opened = await web.files.getUploadURLExternal({ filename: "notes.txt", length: 5 });
    const url = opened.upload_url!;
    expect(await upload(`${fake.root}/upload/v1/nosuchticket`, "hello")).toEqual([404, "Not Found"]);
    expect((await fetch(url)).status).toBe(405);
    expect(await upload(url, "hell")).toEqual([400, "expected 5 bytes (length), got 4"]);
    expect(await upload(url, "hello!")).toEqual([400, "expected 5 bytes (length), got 6"]);
    const noFile = new FormData();
    noFile.append("filename", "notes.txt");
    expect(await upload(url, noFile)).toEqual([400, "no file in the form"]);
    expect(await upload(url, "hello", { headers: { "content-type": "application/octet-stream" } })).toEqual([200, "OK - 5"]);
    expect(await upload(url, "hello")).toEqual([409, "this upload URL was used already"]);
    expect(fake.uploads.all).toMatchObject([{ filename: "notes.txt", encoding: "raw", bytes: Buffer.from("hello") }]);

    const second = await web.files.getUploadURLExternal({ filename: "b.txt", length: 2 });
    const form = new FormData();
    form.append("file", new Blob(["hi"]), "b.txt");
    expect(await upload(second.upload_url!, form)).toEqual([200, "OK - 2"]);
  });

  it("completeUploadExternal refuses files it cannot find (never opened, bytes not come, shared already), and a files that is no array of {id}", async () => {
    const { web, fake } = slack;
    const { general, lobby } = someConversations(fake);
    const complete = (args: Record<string, unknown>) => web.files.completeUploadExternal(args as never);
    expect(await refusal(complete({ files: [{ id: "F0NOSUCH" }], channel_id: general.id }))).toBe("file_not_found");
    const opened = await web.files.getUploadURLExternal({ filename: "a.txt", length: 1 });
    const id = opened.file_id!;
    expect(await refusal(complete({ files: [{ id }], channel_id: general.id }))).toBe("file_not_found");
    await upload(opened.upload_url!, "a");
    expect(await refusal(complete({ channel_id: general.id }))).toBe("invalid_arguments");
    expect(await refusal(complete({ files: { id }, channel_id: general.id }))).toBe("invalid_arguments");
    expect(await refusal(complete({ files: [], channel_id: general.id }))).toBe("invalid_arguments");
    expect(await refusal(complete({ files: [{ title: "no id" }], channel_id: general.id }))).toBe("invalid_arguments");
    expect(await refusal(complete({ files: [{ id, title: 7 }], channel_id: general.id }))).toBe("invalid_arguments");
    expect(await refusal(complete({ files: [{ id }], channel_id: lobby.id }))).toBe("not_in_channel");
    expect(await refusal(complete({ files: [{ id }], channel_id: "C0NOPE" }))).toBe("channel_not_found");
    expect(await refusal(complete({ files: [{ id }], channel_id: general.id, thread_ts: "yesterday" }))).toBe("invalid_arguments");
    await expect(complete({ files: [{ id, title: "A" }], channel_id: general.id })).resolves.toMatchObject({ files: [{ id, title: "A" }] });
    expect(await refusal(complete({ files: [{ id }], channel_id: general.id }))).toBe("file_not_found");
    expect(fake.shown(general.id).map((message) => [message.text, message.files.map((file) => file.title)])).toEqual([["", ["A"]]]);
  });

  it("without a channel the file stays private: shared nowhere; blocks are ignored beside initial_comment", async () => {
    const { web, fake } = slack;
    const { general } = someConversations(fake);
    await web.filesUploadV2({ file: Buffer.from("private"), filename: "p.txt" });
    expect(fake.shown(general.id)).toEqual([]);
    await web.filesUploadV2({ channel_id: general.id, file: Buffer.from("x"), filename: "x.txt", initial_comment: "the comment", blocks: [{ type: "carousel" }] as never });
    expect(fake.shown(general.id).map((message) => [message.text, message.message.blocks])).toEqual([["the comment", undefined]]);
  });
});

describe("fake Slack: files.completeUploadExternal with its shares", () => {
  const slack = useFakeSlack({ completeUploadShares: true });

  it("answers the whole file with shares naming the message's ts, as Slack does once its share finished", async () => {
    const { web, fake } = slack;
    const { general, alice } = someConversations(fake);
    const parent = fake.from(alice).message(general.id, "hi");
    const result = await web.filesUploadV2({ channel_id: general.id, thread_ts: parent.ts, file: Buffer.from("x"), filename: "x.txt" });
    const shown = fake.shown(general.id, { thread: parent.ts }).find((message) => message.from_bot)!;
    expect(result.files[0]!.files![0]).toMatchObject({ name: "x.txt", shares: { public: { [general.id]: [{ ts: shown.ts, thread_ts: parent.ts, channel_name: "general" }] } } });
  });
});

describe("fake Slack: a workspace that restricts large uploads", () => {
  const slack = useFakeSlack({ uploadLimitBytes: 100 });

  it("refuses a length over the restriction with file_upload_size_restricted, and takes one at it", async () => {
    expect(await refusal(slack.web.files.getUploadURLExternal({ filename: "a.bin", length: 101 }))).toBe("file_upload_size_restricted");
    await expect(slack.web.files.getUploadURLExternal({ filename: "a.bin", length: 100 })).resolves.toMatchObject({ ok: true });
  });
});

describe("fake Slack: an app without files:write", () => {
  const slack = useFakeSlack({ botScopes: ["chat:write"] });

  it("is refused both upload methods with missing_scope", async () => {
    await expect(slack.web.files.getUploadURLExternal({ filename: "a.txt", length: 1 })).rejects.toMatchObject({ data: { error: "missing_scope", needed: "files:write" } });
    await expect(slack.web.files.completeUploadExternal({ files: [{ id: "F1" }] })).rejects.toMatchObject({ data: { error: "missing_scope", needed: "files:write" } });
  });
});
