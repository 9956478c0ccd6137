import type { Message } from "grammy/types";
import { describe, expect, it } from "vitest";
import { isTextFileName, MAX_DOCUMENT_BYTES, MAX_IMAGE_BYTES, MAX_TEXT_FILE_BYTES } from "../../../src/platforms/fileKinds.js";
import { MAX_AUDIO_BYTES } from "../../../src/stt/speechToText.js";
import { mediaOf } from "../../../src/platforms/telegram/messageMedia.js";

const base = { message_id: 1, date: 0, chat: { id: 1, type: "private", first_name: "A" } } as const;
const message = (fields: Partial<Message>) => ({ ...base, ...fields }) as Message;

describe("mediaOf", () => {
  it("takes the largest photo by pixels as an image", () => {
    const photo = [
      { file_id: "small", file_unique_id: "a", width: 90, height: 68, file_size: 900 },
      { file_id: "large", file_unique_id: "b", width: 1280, height: 960, file_size: 90_000 },
      { file_id: "medium", file_unique_id: "c", width: 320, height: 240, file_size: 9_000 },
    ];
    expect(mediaOf(message({ photo }))).toEqual([{ kind: "download", fileId: "large", type: "image", filename: "photo.jpg", mime_type: "image/jpeg", size: 90_000, maxBytes: MAX_IMAGE_BYTES }]);
  });

  it("takes an audio file as audio with its name, and a text document as a text file", () => {
    expect(mediaOf(message({ audio: { file_id: "a", file_unique_id: "u", duration: 3, file_name: "memo.mp3", mime_type: "audio/mpeg", file_size: 10 } }))[0]).toMatchObject({ kind: "download", type: "audio", filename: "memo.mp3", mime_type: "audio/mpeg" });
    expect(mediaOf(message({ document: { file_id: "d", file_unique_id: "u", file_name: "notes.MD", mime_type: "text/markdown", file_size: 50 } }))).toEqual([
      { kind: "download", fileId: "d", type: "text_file", filename: "notes.MD", mime_type: "text/markdown", size: 50, maxBytes: MAX_TEXT_FILE_BYTES },
    ]);
    expect(mediaOf(message({ document: { file_id: "d", file_unique_id: "u", file_name: "Dockerfile", mime_type: "application/octet-stream" } }))[0]).toMatchObject({ kind: "download", mime_type: "text/plain" });
  });

  it("takes a document that is not text as a file (a document to embed), where upstream refuses it", () => {
    expect(mediaOf(message({ document: { file_id: "d", file_unique_id: "u", file_name: "report.pdf", mime_type: "application/pdf", file_size: 2048 } }))).toEqual([
      { kind: "download", fileId: "d", type: "file", filename: "report.pdf", mime_type: "application/pdf", size: 2048, maxBytes: MAX_DOCUMENT_BYTES },
    ]);
    expect(mediaOf(message({ document: { file_id: "d", file_unique_id: "u" } }))[0]).toMatchObject({ kind: "download", type: "file", filename: "document", mime_type: "application/octet-stream", size: 0 });
  });

  it("an image or audio sent as a document is taken as an image or audio, as Discord's and Slack's files are", () => {
    expect(mediaOf(message({ document: { file_id: "d", file_unique_id: "u", file_name: "scan.PNG", mime_type: "image/png", file_size: 9 } }))[0]).toMatchObject({ type: "image", mime_type: "image/png", maxBytes: MAX_IMAGE_BYTES });
    expect(mediaOf(message({ document: { file_id: "d", file_unique_id: "u", file_name: "shot.jpg", file_size: 9 } }))[0]).toMatchObject({ type: "image", mime_type: "image/jpeg" });
    expect(mediaOf(message({ document: { file_id: "d", file_unique_id: "u", file_name: "take.wav", mime_type: "audio/wav", file_size: 9 } }))[0]).toMatchObject({ type: "audio", mime_type: "audio/wav", maxBytes: MAX_AUDIO_BYTES });
  });

  it("a document over MAX_DOCUMENT_BYTES (10 MiB) by what Telegram says is not downloaded; an animation's document is still refused", () => {
    const [big] = mediaOf(message({ document: { file_id: "d", file_unique_id: "u", file_name: "big.pdf", mime_type: "application/pdf", file_size: MAX_DOCUMENT_BYTES + 1 } }));
    expect(big).toEqual({ kind: "rejected", attachment: { type: "file", filename: "big.pdf", mime_type: "application/pdf", data: "", size: MAX_DOCUMENT_BYTES + 1, status: "size exceeded: 10.0 MB exceeds 10.0 MB" } });
    const gif = { file_id: "g", file_unique_id: "u", file_name: "fun.mp4", mime_type: "video/mp4", file_size: 99 };
    expect(mediaOf(message({ animation: { ...gif, width: 1, height: 1, duration: 1 }, document: gif }))).toEqual([
      { kind: "rejected", attachment: { type: "file", filename: "fun.mp4", mime_type: "video/mp4", data: "", size: 99, status: "unsupported format: mp4" } },
    ]);
  });

  it("refuses a file Telegram says is over its limit without downloading it", () => {
    const [item] = mediaOf(message({ voice: { file_id: "v", file_unique_id: "u", duration: 600, file_size: 30 * 1024 * 1024 } }));
    expect(item).toMatchObject({ kind: "rejected", attachment: { type: "audio", status: "size exceeded: 30.0 MB exceeds 25.0 MB" } });
  });

  it("recognises upstream's text names and extensions, case-insensitively", () => {
    for (const name of ["a.txt", "B.JSON", "x.tsx", "Makefile", ".gitignore", "conf.env"]) expect(isTextFileName(name)).toBe(true);
    for (const name of ["report.pdf", "image.png", "noextension", "archive.tar.gz"]) expect(isTextFileName(name)).toBe(false);
  });
});
