import { describe, expect, it } from "vitest";
import { MAX_DOCUMENT_BYTES, MAX_TEXT_FILES } from "../../../src/platforms/fileKinds.js";
import { messageFiles, withinTextBudget } from "../../../src/platforms/slack/messageFiles.js";

const file = (name: string, mimetype: string, size = 10) => ({ name, mimetype, size, url_private: `https://files.slack.com/${name}` });

describe("messageFiles (§2.7, §3.4 step 5)", () => {
  it("sorts audio, text files and images, MIME parameters stripped", () => {
    const items = messageFiles([file("clip.webm", "audio/webm"), file("a.txt", "text/plain; charset=utf-8"), file("config", "application/toml"), file("Dockerfile", "application/octet-stream"), file("pic.PNG", "")]);
    expect(items.map((item) => (item.kind === "download" ? [item.type, item.mime_type] : ["rejected", item.attachment.status]))).toEqual([
      ["audio", "audio/webm"],
      ["text_file", "text/plain"],
      ["text_file", "application/toml"],
      ["text_file", "text/plain"],
      ["image", "image/png"],
    ]);
  });

  it("skips a file without a URL; any other kind of file is a file (a document to embed), up to MAX_DOCUMENT_BYTES", () => {
    expect(messageFiles([{ name: "x.txt", mimetype: "text/plain" }, null, 5])).toEqual([]);
    expect(messageFiles([file("deck.pdf", "application/pdf"), file("blob", "")])).toEqual([
      { kind: "download", url: "https://files.slack.com/deck.pdf", type: "file", filename: "deck.pdf", mime_type: "application/pdf", size: 10, maxBytes: MAX_DOCUMENT_BYTES },
      { kind: "download", url: "https://files.slack.com/blob", type: "file", filename: "blob", mime_type: "application/octet-stream", size: 10, maxBytes: MAX_DOCUMENT_BYTES },
    ]);
    expect(messageFiles([file("big.zip", "application/zip", MAX_DOCUMENT_BYTES + 1)])).toEqual([
      { kind: "rejected", attachment: { type: "file", filename: "big.zip", mime_type: "application/zip", data: "", size: MAX_DOCUMENT_BYTES + 1, status: "size exceeded: 10.0 MB exceeds 10.0 MB" } },
    ]);
  });

  it("refuses a file Slack already says is over its cap, and a sixth text file", () => {
    const [big] = messageFiles([file("huge.png", "image/png", 11 * 1024 * 1024)]);
    expect(big).toMatchObject({ kind: "rejected", attachment: { status: "size exceeded: 11.0 MB exceeds 10.0 MB" } });
    const texts = messageFiles(Array.from({ length: MAX_TEXT_FILES + 1 }, (_, i) => file(`f${i}.md`, "text/markdown")));
    expect(texts.filter((item) => item.kind === "download")).toHaveLength(MAX_TEXT_FILES);
    expect(texts.at(-1)).toMatchObject({ kind: "rejected", attachment: { status: "skipped: at most 5 text files a message" } });
  });

  it("a size of 0 (Slack sometimes says so) is downloaded under the cap", () => {
    expect(messageFiles([file("a.txt", "text/plain", 0)])).toMatchObject([{ kind: "download", size: 0, maxBytes: 512 * 1024 }]);
  });
});

describe("withinTextBudget", () => {
  it("re-checks the 1 MiB total with the downloaded sizes, in order", () => {
    const text = (name: string, size: number) => ({ type: "text_file", filename: name, mime_type: "text/plain", data: "eA==", size });
    const image = { type: "image", filename: "p.png", mime_type: "image/png", data: "eA==", size: 5_000_000 };
    const checked = withinTextBudget([text("a", 600_000), image, text("b", 500_000), text("c", 100_000)]);
    expect(checked.map((attachment) => attachment.status ?? "ok")).toEqual(["ok", "ok", "size exceeded: 1.0 MB exceeds 1.0 MB (text files together)", "size exceeded: 1.1 MB exceeds 1.0 MB (text files together)"]);
  });
});
