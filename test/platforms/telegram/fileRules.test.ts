import { GrammyError } from "grammy";
import { describe, expect, it } from "vitest";
import { botApiFailure } from "../../../src/platforms/telegram/botApiFailure.js";
import { captionGoesApart, TELEGRAM_CAPTION_LIMIT } from "../../../src/platforms/telegram/fileReplies.js";
import { isPhotoRefusal } from "../../../src/platforms/telegram/photoRefusal.js";
import { uploadFileName } from "../../../src/platforms/telegram/uploadFileName.js";

// The pure rules of a Telegram file send: when the caption goes apart, which refusals of a photo
// send it again as a document, and the name an upload carries.

const refused = (error_code: number, description: string) => botApiFailure(new GrammyError("Call to 'sendPhoto' failed!", { ok: false, error_code, description }, "sendPhoto", {}));

describe("captionGoesApart", () => {
  it("a caption of up to 1024 characters (code points, as Telegram counts) stays on the file", () => {
    expect(captionGoesApart("", undefined)).toBe(false);
    expect(captionGoesApart("x".repeat(TELEGRAM_CAPTION_LIMIT), undefined)).toBe(false);
    expect(captionGoesApart("😀".repeat(TELEGRAM_CAPTION_LIMIT), undefined)).toBe(false);
  });

  it("a longer one, or a message with buttons, goes as a text message of its own", () => {
    expect(captionGoesApart("x".repeat(TELEGRAM_CAPTION_LIMIT + 1), undefined)).toBe(true);
    expect(captionGoesApart("pick one", [{ label: "Yes", data: "y" }])).toBe(true);
    expect(captionGoesApart("pick one", [])).toBe(false);
  });
});

describe("isPhotoRefusal", () => {
  it("a 400 about the picture itself: sent again as a document", () => {
    expect(isPhotoRefusal(refused(400, "Bad Request: PHOTO_INVALID_DIMENSIONS"))).toBe(true);
    expect(isPhotoRefusal(refused(400, "Bad Request: IMAGE_PROCESS_FAILED"))).toBe(true);
    expect(isPhotoRefusal(refused(400, "Bad Request: PHOTO_SAVE_FILE_INVALID"))).toBe(true);
    expect(isPhotoRefusal(refused(400, "Bad Request: file of size 11000000 bytes is too big for a photo; the maximum size is 10485760 bytes"))).toBe(true);
  });

  it("anything else is not: the chat, the caption, a 429, a 5xx, an upload too big for any file", () => {
    expect(isPhotoRefusal(refused(400, "Bad Request: chat not found"))).toBe(false);
    expect(isPhotoRefusal(refused(400, "Bad Request: message caption is too long"))).toBe(false);
    expect(isPhotoRefusal(refused(429, "Too Many Requests: retry after 1"))).toBe(false);
    expect(isPhotoRefusal(refused(500, "Internal Server Error: PHOTO_INVALID"))).toBe(false);
    expect(isPhotoRefusal(refused(413, "Request Entity Too Large"))).toBe(false);
  });
});

describe("uploadFileName", () => {
  it("keeps a name Telegram reads back whole, spaces and any script included", () => {
    expect(uploadFileName("report.pdf")).toBe("report.pdf");
    expect(uploadFileName("Q3 отчёт.pdf")).toBe("Q3 отчёт.pdf");
  });

  it("replaces what would cut the unquoted header value (; and \") and drops line breaks; nothing left is `file`", () => {
    expect(uploadFileName('a;b "c".txt')).toBe("a_b _c_.txt");
    expect(uploadFileName("two\r\nlines.txt")).toBe("twolines.txt");
    expect(uploadFileName(" \n ")).toBe("file");
  });
});
