import { describe, expect, it } from "vitest";
import type { OutboundMessage } from "../../operators/delivery/outboundMessage.js";
import { FRAME_CEILING_BYTES } from "../../src/config/sections/gateway.js";
import { fileNoticeReply } from "../../src/gateway/fileNoticeReply.js";
import { replyFrame } from "../../src/gateway/replyFrame.js";

const attachment = { filename: "report.pdf", mime_type: "application/pdf", size: 3, kind: "document", ref: "file-1" } as const;
const send: OutboundMessage = {
  reply_to: "evt-1",
  platform: "telegram",
  channel: { id: "chat-1" },
  content: { type: "text", text: "the report" },
  attachment,
};
const bytes = new Uint8Array([0x25, 0x50, 0x44]); // "%PD", base64 "JVBE"

describe("reply frames with a file", () => {
  it("carry it as content.attachments, the event attachments' shape, after the caption; the rest as before", () => {
    expect(replyFrame(send, "req_1", bytes)).toBe(
      '{"schema":"openab.gateway.reply.v1","reply_to":"evt-1","platform":"telegram","channel":{"id":"chat-1"},' +
        '"content":{"type":"text","text":"the report","attachments":[{"type":"file","filename":"report.pdf","mime_type":"application/pdf","data":"JVBE","size":3}]},' +
        '"request_id":"req_1"}',
    );
  });

  it("say type image for an image and file for anything else; size is the bytes'", () => {
    const png = new Uint8Array(1000).fill(7);
    const frame = JSON.parse(replyFrame({ ...send, content: { type: "text", text: "" }, attachment: { ...attachment, kind: "image", mime_type: "image/png", filename: "a.png", size: 1000 } }, undefined, png)) as {
      content: { text: string; attachments: { type: string; data: string; size: number }[] };
    };
    expect(frame.content.text).toBe("");
    expect(frame.content.attachments).toHaveLength(1);
    expect(frame.content.attachments[0]).toMatchObject({ type: "image", size: 1000 });
    expect(Buffer.from(frame.content.attachments[0]?.data ?? "", "base64").equals(Buffer.from(png))).toBe(true);
  });

  it("base64 only the file's own bytes when they are a view into a larger buffer", () => {
    const whole = new Uint8Array([1, 2, 0x25, 0x50, 0x44, 9]);
    const frame = JSON.parse(replyFrame(send, undefined, whole.subarray(2, 5))) as { content: { attachments: { data: string }[] } };
    expect(frame.content.attachments[0]?.data).toBe("JVBE");
  });

  it("for an 8 MiB file (a gateway platform's limit) are about 11 MiB, within the frame ceiling the connector writes up to", () => {
    const size = 8 * 1024 * 1024;
    const bytes = Buffer.byteLength(replyFrame({ ...send, attachment: { ...attachment, size } }, "req_1", new Uint8Array(size)));
    expect(bytes).toBeGreaterThan((size * 4) / 3);
    expect(bytes).toBeLessThan(12 * 1024 * 1024);
    expect(bytes).toBeLessThan(FRAME_CEILING_BYTES);
  });

  it("carry no attachments without the bytes, or on a command", () => {
    expect(replyFrame(send, undefined)).not.toContain("attachments");
    expect(replyFrame({ ...send, command: "edit_message" }, undefined, bytes)).not.toContain("attachments");
  });
});

describe("fileNoticeReply", () => {
  it("is the notice line, then the caption after a newline; no attachment left", () => {
    const notice = fileNoticeReply({ ...send, attachment: { ...attachment, size: 2_200_000 } }, { ...attachment, size: 2_200_000 });
    expect(notice).toEqual({ reply_to: "evt-1", platform: "telegram", channel: { id: "chat-1" }, content: { type: "text", text: "📎 report.pdf (2.1 MB) could not be sent here\nthe report" } });
  });

  it("is the notice line alone when there is no caption, and keeps the send's other fields", () => {
    const notice = fileNoticeReply({ ...send, content: { type: "text", text: "" }, quote_message_id: "m1", channel: { id: "c", thread_id: "t" } }, attachment);
    expect(notice).toEqual({ reply_to: "evt-1", platform: "telegram", channel: { id: "c", thread_id: "t" }, quote_message_id: "m1", content: { type: "text", text: "📎 report.pdf (3 B) could not be sent here" } });
  });
});
