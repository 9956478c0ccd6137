import type { Message } from "grammy/types";
import { describe, expect, it } from "vitest";
import { isTextFileName, MAX_IMAGE_BYTES, MAX_TEXT_FILE_BYTES } from "../../../src/platforms/fileKinds.js";
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

  it("refuses a document that is not text as upstream words it (§6.5: report.pdf)", () => {
    const [item] = mediaOf(message({ document: { file_id: "d", file_unique_id: "u", file_name: "report.pdf", mime_type: "application/pdf", file_size: 2048 } }));
    expect(item).toEqual({ kind: "rejected", attachment: { type: "text_file", filename: "report.pdf", mime_type: "application/pdf", data: "", size: 2048, status: "unsupported format: pdf" } });
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
