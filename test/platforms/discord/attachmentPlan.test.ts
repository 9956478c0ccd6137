import type { APIAttachment } from "@discordjs/core";
import { describe, expect, it } from "vitest";
import { planAttachments } from "../../../src/platforms/discord/attachmentPlan.js";
import { isTextFile, MAX_DOCUMENT_BYTES, stripMimeParams } from "../../../src/platforms/fileKinds.js";

function file(filename: string, size: number, content_type?: string): APIAttachment {
  return { id: "1", filename, size, url: `http://127.0.0.1/${filename}`, proxy_url: "", ...(content_type === undefined ? {} : { content_type }) };
}

describe("planAttachments (§2.7)", () => {
  it("audio for [stt], text files, images by type or extension, anything else a file (a document to embed)", () => {
    const plan = planAttachments([file("v.ogg", 10, "audio/ogg"), file("a.rs", 10), file("p.PNG", 10), file("x.bin", 10, "image/webp"), file("r.pdf", 10, "application/pdf"), file("blob", 10)]);
    expect(plan.map((item) => (item.kind === "download" ? [item.type, item.mime_type] : [item.attachment.type, item.attachment.status]))).toEqual([
      ["audio", "audio/ogg"],
      ["text_file", "text/plain"],
      ["image", "image/png"],
      ["image", "image/webp"],
      ["file", "application/pdf"],
      ["file", "application/octet-stream"],
    ]);
    expect(plan[4]).toMatchObject({ kind: "download", filename: "r.pdf", size: 10, maxBytes: MAX_DOCUMENT_BYTES });
  });

  it("a document over MAX_DOCUMENT_BYTES (10 MiB) by what Discord says is not fetched: its status says why", () => {
    expect(MAX_DOCUMENT_BYTES).toBe(10 * 1024 * 1024);
    const [big, fits] = planAttachments([file("big.pdf", MAX_DOCUMENT_BYTES + 1, "application/pdf"), file("fits.zip", MAX_DOCUMENT_BYTES, "application/zip")]);
    expect(big).toEqual({ kind: "rejected", attachment: { type: "file", filename: "big.pdf", mime_type: "application/pdf", data: "", size: MAX_DOCUMENT_BYTES + 1, status: "size exceeded: 10.0 MB exceeds 10.0 MB" } });
    expect(fits).toMatchObject({ kind: "download", type: "file", mime_type: "application/zip" });
  });

  it("limits: 10 MiB an image, 512 KiB a text file, at most 5 text files and 1 MiB of them", () => {
    const big = planAttachments([file("huge.png", 10 * 1024 * 1024 + 1, "image/png"), file("big.txt", 512 * 1024 + 1, "text/plain")]);
    expect(big.map((item) => item.kind === "rejected" && item.attachment.status)).toEqual(["size exceeded: 10.0 MB exceeds 10.0 MB", "size exceeded: 512.0 KB exceeds 512.0 KB"]);
    const six = planAttachments(Array.from({ length: 6 }, (_, i) => file(`f${i}.md`, 10)));
    expect(six.map((item) => item.kind)).toEqual(["download", "download", "download", "download", "download", "rejected"]);
    const total = planAttachments([file("a.txt", 500 * 1024), file("b.txt", 500 * 1024), file("c.txt", 100 * 1024)]);
    expect(total.map((item) => item.kind)).toEqual(["download", "download", "rejected"]);
  });

  it("text files by MIME type, extension or name, any case", () => {
    expect(isTextFile("application/json", "x")).toBe(true);
    expect(isTextFile("", "Dockerfile")).toBe(true);
    expect(isTextFile("", "CONFIG.TOML")).toBe(true);
    expect(isTextFile("", ".gitignore")).toBe(true);
    expect(isTextFile("application/octet-stream", "photo.jpg")).toBe(false);
  });

  it("stripMimeParams (§6.4)", () => {
    expect(stripMimeParams("text/plain; charset=utf-8")).toBe("text/plain");
    expect(stripMimeParams("  text/plain  ")).toBe("text/plain");
    expect(stripMimeParams("")).toBe("");
  });
});
