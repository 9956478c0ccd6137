import { describe, expect, it } from "vitest";
import { batchTokens } from "../../../operators/dispatch/batchTokens.js";
import type { GatewayAttachment } from "../../../operators/ingress/gatewayEvent.js";
import { gatewayEvent } from "../../helpers/events.js";

const attachment = (overrides: Partial<GatewayAttachment>): GatewayAttachment => ({ type: "text_file", filename: "f.txt", mime_type: "text/plain", data: "", size: 0, ...overrides });

// Upstream's vectors (`estimate_tokens` in openab's dispatch.rs): bytes / 4 + 1 per text, 512 per image.
describe("batchTokens (§13 token estimate)", () => {
  it("is at least 1 for an empty message", () => {
    expect(batchTokens(gatewayEvent({ text: "" }))).toBe(1);
  });

  it("counts 400 chars as 101 tokens", () => {
    expect(batchTokens(gatewayEvent({ text: "a".repeat(400) }))).toBe(101);
  });

  it("counts UTF-8 bytes, not characters", () => {
    // "é" is 2 bytes: 8 bytes → 3 tokens.
    expect(batchTokens(gatewayEvent({ text: "éééé" }))).toBe(3);
  });

  it("adds 512 per image block and bytes / 4 + 1 per attachment text block", () => {
    const image = attachment({ type: "image", mime_type: "image/png", data: "aGk=" });
    expect(batchTokens(gatewayEvent({ text: "", content: { type: "text", text: "", attachments: [image] } }))).toBe(1 + 512);
    const file = attachment({ data: Buffer.from("x".repeat(100)).toString("base64"), filename: "a.txt" });
    // The block is "[File: a.txt]\n```\n" + 100 × x + "\n```": 122 bytes → 31 tokens.
    expect(batchTokens(gatewayEvent({ content: { type: "text", text: "", attachments: [file] } }))).toBe(1 + 31);
  });

  it("skips attachments that make no block", () => {
    expect(batchTokens(gatewayEvent({ content: { type: "text", text: "", attachments: [attachment({ type: "image", data: "" })] } }))).toBe(1);
  });
});
