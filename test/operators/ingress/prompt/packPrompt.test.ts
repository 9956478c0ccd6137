import { describe, expect, it } from "vitest";
import type { GatewayAttachment } from "../../../../operators/ingress/gatewayEvent.js";
import { attachmentBlock, formatAttachmentSize, PATH_NOT_READ_STATUS } from "../../../../operators/ingress/prompt/attachmentBlock.js";
import { packBatch, packPrompt } from "../../../../operators/ingress/prompt/packPrompt.js";
import { overflowNotice } from "../../../../operators/dispatch/queuedPrompt.js";
import { senderContext } from "../../../../operators/ingress/prompt/senderContext.js";
import { gatewayEvent } from "../../../helpers/events.js";

const RECEIVED = "2026-08-25T03:00:07.123Z";
const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

const attachment = (overrides: Partial<GatewayAttachment>): GatewayAttachment => ({
  type: "text_file",
  filename: "notes.txt",
  mime_type: "text/plain",
  data: "",
  size: 0,
  ...overrides,
});

describe("formatAttachmentSize", () => {
  it("uses B below 1 KiB", () => {
    expect(formatAttachmentSize(0)).toBe("0 B");
    expect(formatAttachmentSize(1023)).toBe("1023 B");
  });

  it("uses KB with one decimal from 1 KiB to below 1 MiB", () => {
    expect(formatAttachmentSize(1024)).toBe("1.0 KB");
    expect(formatAttachmentSize(1536)).toBe("1.5 KB");
    expect(formatAttachmentSize(10_000)).toBe("9.8 KB");
    expect(formatAttachmentSize(1024 * 1024 - 1)).toBe("1024.0 KB");
  });

  it("uses MB with one decimal from 1 MiB", () => {
    expect(formatAttachmentSize(1024 * 1024)).toBe("1.0 MB");
    expect(formatAttachmentSize(25 * 1024 * 1024 + 1)).toBe("25.0 MB");
    expect(formatAttachmentSize(3_500_000)).toBe("3.3 MB");
    expect(formatAttachmentSize(1024 * 1024 * 1024)).toBe("1024.0 MB");
  });

  it("rounds an exact tie to even, like Rust's {:.1}", () => {
    expect(formatAttachmentSize(1280)).toBe("1.2 KB"); // 1.25
    expect(formatAttachmentSize(3840)).toBe("3.8 KB"); // 3.75
  });
});

describe("attachmentBlock (§3.4)", () => {
  it("status → the not-delivered note, whatever else the attachment has", () => {
    const block = attachmentBlock(
      attachment({ type: "image", filename: "cat.png", mime_type: "image/png", size: 31_457_280, data: "AA==", status: "too_large: exceeds 20 MB" }),
    );
    expect(block).toStrictEqual({
      type: "text",
      text: '[System: attachment "cat.png" (image/png, 30.0 MB) was not delivered — too_large: exceeds 20 MB]',
    });
  });

  it("image → an ACP image block with the base64 data", () => {
    expect(attachmentBlock(attachment({ type: "image", mime_type: "image/jpeg", data: "/9j/4AAQ", size: 6 }))).toStrictEqual({
      type: "image",
      mimeType: "image/jpeg",
      data: "/9j/4AAQ",
    });
  });

  it("text_file → a fenced [File: name] block with the decoded UTF-8 text", () => {
    expect(attachmentBlock(attachment({ data: b64("line 1\nünïcode ✓"), size: 20 }))).toStrictEqual({
      type: "text",
      text: "[File: notes.txt]\n```\nline 1\nünïcode ✓\n```",
    });
  });

  it("text_file over 64 KiB is inlined the same way (no file store)", () => {
    const big = "x".repeat(64 * 1024 + 1);
    expect(attachmentBlock(attachment({ data: b64(big), size: big.length }))).toStrictEqual({
      type: "text",
      text: `[File: notes.txt]\n\`\`\`\n${big}\n\`\`\``,
    });
  });

  it("cleans the file name: control characters removed, at most 200 chars", () => {
    const block = attachmentBlock(attachment({ filename: `a\u0000b\nc\u007f${"é".repeat(300)}`, data: b64("x") }));
    expect(block).toStrictEqual({ type: "text", text: `[File: abc${"é".repeat(197)}]\n\`\`\`\nx\n\`\`\`` });
  });

  it("audio → a note that speech-to-text is not configured", () => {
    expect(attachmentBlock(attachment({ type: "audio", filename: "voice.ogg", mime_type: "audio/ogg", data: "T2dn", size: 3 }))).toStrictEqual({
      type: "text",
      text: '[System: audio attachment "voice.ogg" skipped: speech-to-text is not configured]',
    });
  });

  it("a path without data → the not-delivered note (turnstream reads no files)", () => {
    expect(attachmentBlock(attachment({ path: "/shared/notes.txt", size: 2048 }))).toStrictEqual({
      type: "text",
      text: `[System: attachment "notes.txt" (text/plain, 2.0 KB) was not delivered — ${PATH_NOT_READ_STATUS}]`,
    });
  });

  it("a path with data uses the data", () => {
    expect(attachmentBlock(attachment({ path: "/shared/notes.txt", data: b64("hi"), size: 2 }))).toStrictEqual({
      type: "text",
      text: "[File: notes.txt]\n```\nhi\n```",
    });
  });

  it("no path and no data → skipped", () => {
    expect(attachmentBlock(attachment({ type: "image" }))).toBeUndefined();
    expect(attachmentBlock(attachment({ path: null }))).toBeUndefined();
    expect(attachmentBlock(attachment({ path: "" }))).toBeUndefined();
  });

  it("a type it does not handle → skipped", () => {
    expect(attachmentBlock(attachment({ type: "video", data: "AAAA", size: 3 }))).toBeUndefined();
  });
});

describe("packPrompt (§7.2)", () => {
  it("is the sender context then the text for a plain message", () => {
    const event = gatewayEvent({ text: "hello" });
    expect(packPrompt(event, RECEIVED)).toStrictEqual([
      { type: "text", text: `<sender_context>\n${senderContext(event, RECEIVED)}\n</sender_context>` },
      { type: "text", text: "hello" },
    ]);
  });

  it("orders context, attachment text blocks, message text, then images", () => {
    const event = gatewayEvent({
      timestamp: "",
      content: {
        type: "text",
        text: "look at these",
        attachments: [
          attachment({ type: "image", mime_type: "image/png", data: "img1", size: 3 }),
          attachment({ data: b64("a,b"), filename: "t.csv" }),
          attachment({ type: "image", mime_type: "image/gif", data: "img2", size: 3 }),
          attachment({ type: "image", filename: "none.png" }),
          attachment({ type: "audio", filename: "v.ogg", status: "unsupported: too long" }),
        ],
      },
    });
    const blocks = packPrompt(event, RECEIVED);
    expect(blocks).toStrictEqual([
      { type: "text", text: `<sender_context>\n${senderContext(event, RECEIVED)}\n</sender_context>` },
      { type: "text", text: "[File: t.csv]\n```\na,b\n```" },
      { type: "text", text: '[System: attachment "v.ogg" (text/plain, 0 B) was not delivered — unsupported: too long]' },
      { type: "text", text: "look at these" },
      { type: "image", mimeType: "image/png", data: "img1" },
      { type: "image", mimeType: "image/gif", data: "img2" },
    ]);
    expect(blocks[0]).toMatchObject({ text: expect.stringContaining(`"timestamp":"${RECEIVED}"`) });
  });

  it("leaves out an empty message text", () => {
    const event = gatewayEvent({ content: { type: "text", text: "", attachments: [attachment({ type: "image", data: "i", mime_type: "image/png" })] } });
    expect(packPrompt(event, RECEIVED).map((block) => block.type)).toStrictEqual(["text", "image"]);
  });

  it("handles content without an attachments array", () => {
    expect(packPrompt(gatewayEvent({ content: { type: "text", text: "x" } }), RECEIVED)).toHaveLength(2);
  });
});

describe("packBatch (§13: a batch is its arrivals' blocks, in arrival order)", () => {
  it("concatenates each arrival's packPrompt, oldest first", () => {
    const one = gatewayEvent({ text: "one", message_id: "m-1" });
    const two = gatewayEvent({ text: "two", message_id: "m-2", sender: { id: "u-2", name: "bo", display_name: "Bo", is_bot: false } });
    expect(packBatch([one, two], [], RECEIVED)).toStrictEqual([...packPrompt(one, RECEIVED), ...packPrompt(two, RECEIVED)]);
  });

  it("leads with OpenClaw's overflow block when the queue cap dropped messages", () => {
    const one = gatewayEvent({ text: "one" });
    const blocks = packBatch([one], ["dropped a", "dropped b"], RECEIVED);
    expect(blocks[0]).toStrictEqual({ type: "text", text: overflowNotice(["dropped a", "dropped b"]) });
    expect(blocks.slice(1)).toStrictEqual(packPrompt(one, RECEIVED));
  });
});
